import ChatCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The C ABI of simplex-chat's Mobile.hs (seed 002 §2); include/simplex.h declares every function
// here with its semantics. Strings come in as NUL-terminated UTF-8 (NULL reads as empty) and go
// out as malloc'd NUL-terminated UTF-8 that the caller frees with free().

public typealias CStr = UnsafePointer<CChar>?
public typealias CStrOut = UnsafeMutablePointer<CChar>?

// MARK: - Controllers

@_cdecl("chat_migrate_init")
public func chat_migrate_init(_ path: CStr, _ key: CStr, _ confirm: CStr,
                              _ ctrl: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> CStrOut {
    chat_migrate_init_key(path, key, 0, confirm, 0, ctrl)
}

@_cdecl("chat_migrate_init_key")
public func chat_migrate_init_key(_ path: CStr, _ key: CStr, _ keepKey: Int32, _ confirm: CStr, _ backgroundMode: Int32,
                                  _ ctrl: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> CStrOut {
    guard let prefix = Lib.string(path), !prefix.isEmpty else {
        return Lib.cString(DBMigrationResult.errorSQL(dbFile: "", migrationSQLError: "empty or NULL database path").jsonString())
    }
    guard let confirmation = MigrationConfirmation(string: Lib.string(confirm) ?? "") else {
        return Lib.cString(DBMigrationResult.invalidConfirmation.jsonString())
    }
    var config = ChatController.Config()
    config.defaultSMPServers = smpServersFromEnvironment()
    let (c, result) = ChatController.open(dbPrefix: prefix, key: Lib.string(key) ?? "", confirm: confirmation,
                                          config: config, group: Lib.eventLoopGroup())
    if let c, result == .ok {
        let handle = Lib.register(c)
        if let ctrl {
            ctrl.pointee = handle
        } else {
            // Nowhere to put the handle: nobody could ever use or close this controller.
            _ = Lib.unregister(handle)
            Lib.blocking { await c.close() }
            return Lib.cString(DBMigrationResult.errorSQL(dbFile: ChatController.chatDatabasePath(prefix),
                                                          migrationSQLError: "NULL chat_ctrl pointer").jsonString())
        }
    }
    return Lib.cString(result.jsonString())
}

/// `SIMPLEX_SMP_SERVERS`: smp:// addresses separated by commas. An address may itself list
/// several hosts with commas (`smp://k@a,b:5223`), so a piece that does not start with a scheme
/// continues the previous address.
func smpServersFromEnvironment() -> [String] {
    guard let raw = getenv("SIMPLEX_SMP_SERVERS") else { return [] }
    var out: [String] = []
    for piece in String(cString: raw).split(separator: ",") {
        let p = piece.trimmingSpaces()
        if p.isEmpty { continue }
        if p.contains("://") || out.isEmpty { out.append(p) } else { out[out.count - 1] += "," + p }
    }
    return out
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

@_cdecl("chat_send_cmd")
public func chat_send_cmd(_ ctrl: UnsafeMutableRawPointer?, _ cmd: CStr) -> CStrOut {
    chat_send_cmd_retry(ctrl, cmd, 0)
}

@_cdecl("chat_send_cmd_retry")
public func chat_send_cmd_retry(_ ctrl: UnsafeMutableRawPointer?, _ cmd: CStr, _ retryNum: Int32) -> CStrOut {
    guard let c = Lib.controller(ctrl) else { return Lib.cString(Lib.notStartedJSON) }
    let command = Lib.string(cmd) ?? ""
    return Lib.cString(Lib.blocking { await c.send(command) })
}

@_cdecl("chat_recv_msg_wait")
public func chat_recv_msg_wait(_ ctrl: UnsafeMutableRawPointer?, _ wait: Int32) -> CStrOut {
    guard let c = Lib.controller(ctrl) else { return Lib.cString("") }
    if wait >= 0 {
        let seconds = Double(wait) / 1_000_000
        return Lib.cString(Lib.blocking { await c.nextEvent(timeout: seconds) } ?? "")
    }
    // A negative wait blocks until an event comes (Haskell `timeout` with a negative time), or
    // until the controller is closed.
    while Lib.controller(ctrl) != nil {
        if let e = Lib.blocking({ await c.nextEvent(timeout: 1) }) { return Lib.cString(e) }
    }
    return Lib.cString("")
}

@_cdecl("chat_close_store")
public func chat_close_store(_ ctrl: UnsafeMutableRawPointer?) -> CStrOut {
    guard let c = Lib.controller(ctrl) else { return Lib.cString("chat_close_store: unknown chat_ctrl") }
    // As in simplex-chat: the database files are released (the agent stops with them) and
    // commands fail until chat_reopen_store; the handle stays valid.
    Lib.blocking { await c.closeStore() }
    return Lib.cString("")
}

@_cdecl("chat_reopen_store")
public func chat_reopen_store(_ ctrl: UnsafeMutableRawPointer?) -> CStrOut {
    guard let c = Lib.controller(ctrl) else { return Lib.cString("chat_reopen_store: unknown chat_ctrl") }
    let failure = Lib.blocking { await c.reopenStore() }
    return Lib.cString(failure.map { "chat_reopen_store: " + $0.jsonString() } ?? "")
}

// MARK: - Haskell runtime stand-ins

/// Hosts written for the GHC build call `hs_init` before anything else; there is no runtime to start.
@_cdecl("hs_init")
public func hs_init(_ argc: UnsafeMutablePointer<Int32>?,
                    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) {}

@_cdecl("hs_init_with_rtsopts")
public func hs_init_with_rtsopts(_ argc: UnsafeMutablePointer<Int32>?,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) {}
