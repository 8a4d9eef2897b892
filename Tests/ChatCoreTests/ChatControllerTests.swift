import Foundation
import NIOPosix
import Testing

@testable import ChatCore

private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

private func tempPrefix(_ name: String = #function) -> String {
    let dir = NSTemporaryDirectory() + "chat-test-\(name.filter { $0.isLetter })-\(UInt32.random(in: 0...UInt32.max))"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir + "/simplex_v1"
}

/// Parses an API answer and returns its "result" or "error" object.
private func answer(_ json: String) throws -> (ok: Bool, body: [String: Any]) {
    let obj = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    if let r = obj["result"] as? [String: Any] { return (true, r) }
    return (false, try #require(obj["error"] as? [String: Any]))
}

private func open(_ prefix: String) throws -> ChatController {
    let (c, r) = ChatController.open(dbPrefix: prefix, group: group)
    #expect(r == .ok)
    return try #require(c)
}

@Suite struct ChatControllerTests {
    @Test func usersLifecycle() async throws {
        let c = try open(tempPrefix())
        var (ok, body) = try answer(await c.send("/user"))
        #expect(!ok && (body["errorType"] as? [String: Any])?["type"] as? String == "noActiveUser")

        (ok, body) = try answer(await c.send(#"/_create user {"profile":{"displayName":"alice","fullName":"Alice A"},"pastTimestamp":false}"#))
        #expect(ok && body["type"] as? String == "activeUser")
        let user = try #require(body["user"] as? [String: Any])
        #expect(user["localDisplayName"] as? String == "alice")
        #expect((user["profile"] as? [String: Any])?["fullName"] as? String == "Alice A")
        #expect(user["activeUser"] as? Bool == true)

        (ok, body) = try answer(await c.send(#"/_create user {"profile":{"displayName":"alice","fullName":""},"pastTimestamp":false}"#))
        #expect(!ok && (body["errorType"] as? [String: Any])?["type"] as? String == "userExists")

        (ok, body) = try answer(await c.send(#"/_create user {"profile":{"displayName":"@bob  smith","fullName":""},"pastTimestamp":false}"#))
        let invalid = try #require(body["errorType"] as? [String: Any])
        #expect(!ok && invalid["type"] as? String == "invalidDisplayName" && invalid["validName"] as? String == "bob smith")

        (ok, body) = try answer(await c.send(#"/_create user {"profile":{"displayName":"bob","fullName":""},"pastTimestamp":false}"#))
        #expect(ok)
        (ok, body) = try answer(await c.send("/users"))
        #expect(ok && (body["users"] as? [Any])?.count == 2)
        (ok, body) = try answer(await c.send("/_user 1"))
        #expect(ok && (body["user"] as? [String: Any])?["localDisplayName"] as? String == "alice")
        (ok, body) = try answer(await c.send("/_user 99"))
        #expect(!ok && body["type"] as? String == "errorStore")
        await c.close()

        // The users survive reopening the database.
        let c2 = try open(c.dbPrefix)
        (ok, body) = try answer(await c2.send("/user"))
        #expect(ok && (body["user"] as? [String: Any])?["localDisplayName"] as? String == "alice")
        await c2.close()
    }

    @Test(arguments: ["", "hello", "/", "/_create user {", "/_user abc", "/_send @x json []", "/_connect", "\u{0}", String(repeating: "/", count: 100_000)])
    func malformedCommandsAreCommandErrors(_ cmd: String) async throws {
        let c = try open(tempPrefix())
        let (ok, body) = try answer(await c.send(cmd))
        #expect(!ok)
        #expect(body["type"] as? String == "error")
        #expect((body["errorType"] as? [String: Any])?["type"] as? String == "commandError")
        // The controller keeps working.
        let (ok2, _) = try answer(await c.send("/users"))
        #expect(ok2)
        await c.close()
    }

    @Test func startStopAndEvents() async throws {
        let c = try open(tempPrefix())
        var (ok, body) = try answer(await c.send("/_start"))
        #expect(ok && body["type"] as? String == "chatStarted")
        (ok, body) = try answer(await c.send("/_start"))
        #expect(ok && body["type"] as? String == "chatRunning")
        (ok, body) = try answer(await c.send("/_stop"))
        #expect(ok && body["type"] as? String == "chatStopped")
        #expect(await c.nextEvent(timeout: 0.05) == nil)
        #expect(FileManager.default.fileExists(atPath: ChatController.agentDatabasePath(c.dbPrefix)))
        await c.close()
    }

    @Test func notADatabaseIsReportedAndTheFileKept() throws {
        let prefix = tempPrefix()
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        try garbage.write(to: URL(fileURLWithPath: ChatController.chatDatabasePath(prefix)))
        let (c, r) = ChatController.open(dbPrefix: prefix, group: group)
        #expect(c == nil)
        #expect(r == .errorNotADatabase(dbFile: ChatController.chatDatabasePath(prefix)))
        #expect(r.jsonString().contains(#""type":"errorNotADatabase""#))
        #expect(try Data(contentsOf: URL(fileURLWithPath: ChatController.chatDatabasePath(prefix))) == garbage)
    }

    /// Issue 4 §5: a key encrypts; a wrong key or none is errorNotADatabase and the file is
    /// left as it was; `/_db encryption` needs the chat stopped and changes or removes the key.
    @Test func encryptedDatabaseKeysAndRekeying() async throws {
        let prefix = tempPrefix()
        let chatPath = ChatController.chatDatabasePath(prefix)
        var (opened, r) = ChatController.open(dbPrefix: prefix, key: "first key", group: group)
        #expect(r == .ok)
        var c = try #require(opened)
        _ = await c.send(#"/_create user {"profile":{"displayName":"Zed-the-unreadable","fullName":""},"pastTimestamp":false}"#)
        await c.close()
        let sealed = try Data(contentsOf: URL(fileURLWithPath: chatPath))
        #expect(sealed.range(of: Data("Zed-the-unreadable".utf8)) == nil)
        for wrong in ["", "second key"] {
            (opened, r) = ChatController.open(dbPrefix: prefix, key: wrong, group: group)
            #expect(opened == nil)
            #expect(r == .errorNotADatabase(dbFile: chatPath))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: chatPath)) == sealed)

        (opened, r) = ChatController.open(dbPrefix: prefix, key: "first key", group: group)
        c = try #require(opened)
        #expect(await c.send("/user").contains("Zed-the-unreadable"))
        _ = await c.send("/_start")
        #expect(await c.send("/db key first-key second").contains("chatNotStopped"))
        _ = await c.send("/_stop")
        #expect(await c.send(#"/_db encryption {"currentKey":"","newKey":"x"}"#).contains(#""databaseError":{"type":"errorEncrypted"}"#))
        #expect(await c.send(#"/_db encryption {"currentKey":"not it","newKey":"x"}"#).contains(#"{"databaseError":{"sqliteError":{"type":"errorNotADatabase"},"type":"errorExport"}"#))
        #expect(await c.send("/db test key nope").contains("errorOpen"))
        #expect(await c.send(#"/_db encryption {"currentKey":"first key","newKey":"second-key"}"#).contains("cmdOk"))
        #expect(await c.send("/db test key second-key").contains("cmdOk"))
        // Still usable after re-keying, and the agent restarts with the new key.
        #expect(await c.send("/user").contains("Zed-the-unreadable"))
        #expect(await c.send("/_start").contains("chatStarted"))
        _ = await c.send("/_stop")
        #expect(await c.send("/db decrypt second-key").contains("cmdOk"))
        #expect(await c.send("/db decrypt second-key").contains("errorPlaintext"))
        await c.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: chatPath)).range(of: Data("Zed-the-unreadable".utf8)) != nil)
        (opened, r) = ChatController.open(dbPrefix: prefix, key: "", group: group)
        #expect(r == .ok)
        await opened?.close()
    }

    @Test func databaseFromANewerVersionIsADowngradeError() async throws {
        let prefix = tempPrefix()
        let c = try open(prefix)
        await c.close()
        let store = try ChatStore.open(path: ChatController.chatDatabasePath(prefix), key: "", confirm: .yesUp).get()
        try store.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('m20990101_future')") }
        store.close()
        let (c2, r) = ChatController.open(dbPrefix: prefix, group: group)
        #expect(c2 == nil)
        #expect(r == .errorMigration(dbFile: ChatController.chatDatabasePath(prefix), migrationError: .downgrade(downMigrations: ["m20990101_future"])))
    }

    @Test func twoControllersSideBySide() async throws {
        let a = try open(tempPrefix("a"))
        let b = try open(tempPrefix("b"))
        async let ra = a.send(#"/_create user {"profile":{"displayName":"alice","fullName":""},"pastTimestamp":false}"#)
        async let rb = b.send(#"/_create user {"profile":{"displayName":"bob","fullName":""},"pastTimestamp":false}"#)
        let (ja, jb) = await (ra, rb)
        #expect(try answer(ja).ok && answer(jb).ok)
        #expect(try (answer(await a.send("/users")).body["users"] as? [Any])?.count == 1)
        #expect(try (answer(await b.send("/user")).body["user"] as? [String: Any])?["localDisplayName"] as? String == "bob")
        await a.close()
        await b.close()
    }
}
