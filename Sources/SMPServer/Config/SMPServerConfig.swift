import Foundation
import SMPProtocol

/// Relay settings, read from `smp-server.ini` in the data folder and overridable by flags.
public struct SMPServerConfig: Sendable, Equatable {
    /// Host name(s) that go into the server address, comma-separated.
    public var host: String = "127.0.0.1"
    /// Address to listen on.
    public var bindAddress: String = "127.0.0.1"
    public var port: Int = 5223
    /// Seconds a message waits for its recipient before the relay drops it (21 days).
    public var messageTTL: Int64 = 21 * 24 * 3600
    /// How often expired messages are removed, seconds.
    public var expireInterval: Int64 = 3600
    /// Undelivered messages a queue holds before SEND gets ERR QUOTA.
    public var queueQuota: Int = 128
    /// Password required with NEW (basic auth); nil lets anyone create queues.
    public var createPassword: String?
    /// Keep queues and messages in the store log; false keeps them in memory only.
    public var storeLog: Bool = true
    /// fsync the store log every N records (0: leave it to the OS, which survives a killed
    /// process but not a power cut).
    public var fsyncEvery: Int = 0
    /// Seconds a new connection has to complete the TLS and SMP handshakes.
    public var handshakeTimeout: Int64 = 15
    /// SMP versions offered to clients (the reference's full range by default); a narrower range
    /// serves as an older relay would.
    public var versions: SMPVersionRange = SMPVersion.supported
    /// Forward senders' commands to other relays (private message routing, PRXY/PFWD). On, as
    /// in the reference (`allowSMPProxy = True`); with `create_password` set, PRXY must carry it.
    public var allowSMPProxy: Bool = true
    /// Seconds a proxy waits to connect to a destination relay, and for its responses.
    public var proxyConnectTimeout: Double = 15
    public var proxyCommandTimeout: Double = 15
    /// Seconds a proxy answers PRXY for a destination it failed to connect to with that failure
    /// instead of trying again (the reference's `persistErrorInterval` of its proxy agent, 30).
    public var proxyPersistErrorInterval: Double = 30
    /// Proxied commands of one client waiting on destinations at once; at this many the relay
    /// stops reading that client's commands until one is answered (the reference's
    /// `[PROXY] client_concurrency`, default 32).
    public var proxyClientConcurrency: Int = 32

    public init() {}

    public static let fileName = "smp-server.ini"

    /// `key = value` lines; `#` starts a comment. Unknown keys are an error so typos show.
    public init(ini text: String) throws {
        self.init()
        for (n, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw ConfigError.syntax(line: n + 1, text: trimmed) }
            try set(parts[0], parts[1], line: n + 1)
        }
    }

    public mutating func set(_ key: String, _ value: String, line: Int = 0) throws {
        func int() throws -> Int64 {
            guard let v = Int64(value), v >= 0 else { throw ConfigError.badValue(key: key, value: value) }
            return v
        }
        switch key {
        case "host": host = value
        case "bind": bindAddress = value
        case "port":
            let p = try int()
            guard p <= 65535 else { throw ConfigError.badValue(key: key, value: value) }
            port = Int(p)
        case "message_ttl": messageTTL = try int()
        case "expire_interval": expireInterval = max(1, try int())
        case "queue_quota": queueQuota = Int(max(1, try int()))
        case "create_password": createPassword = value.isEmpty ? nil : value
        case "store_log":
            guard let b = Bool(value) else { throw ConfigError.badValue(key: key, value: value) }
            storeLog = b
        case "fsync_every": fsyncEvery = Int(try int())
        case "handshake_timeout": handshakeTimeout = max(1, try int())
        case "smp_versions":
            let parts = value.split(separator: "-").map { UInt16($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let lo = parts[0], let hi = parts[1], let r = SMPVersionRange(min: lo, max: hi),
                  SMPVersion.supported.contains(lo), SMPVersion.supported.contains(hi)
            else { throw ConfigError.badValue(key: key, value: value) }
            versions = r
        case "proxy_client_concurrency": proxyClientConcurrency = Int(max(1, try int()))
        case "allow_smp_proxy":
            guard let b = Bool(value) else { throw ConfigError.badValue(key: key, value: value) }
            allowSMPProxy = b
        default: throw ConfigError.unknownKey(key, line: line)
        }
    }

    public var ini: String {
        """
        # SimpleX SMP relay configuration (smp-server init wrote this; flags override it).
        # Host name(s) in the server address, comma-separated.
        host = \(host)
        # Address to listen on.
        bind = \(bindAddress)
        port = \(port)
        # Seconds before an undelivered message expires (21 days).
        message_ttl = \(messageTTL)
        expire_interval = \(expireInterval)
        queue_quota = \(queueQuota)
        # Password for creating queues (empty: anyone can create).
        create_password = \(createPassword ?? "")
        store_log = \(storeLog)
        # fsync the store log every N records; 0 leaves it to the OS.
        fsync_every = \(fsyncEvery)
        handshake_timeout = \(handshakeTimeout)
        # SMP versions offered to clients (min-max).
        smp_versions = \(versions.min)-\(versions.max)
        # Forward senders' messages to other relays (private message routing).
        allow_smp_proxy = \(allowSMPProxy)
        # Proxied commands of one client in progress at once.
        proxy_client_concurrency = \(proxyClientConcurrency)

        """
    }

    public enum ConfigError: Error, CustomStringConvertible {
        case syntax(line: Int, text: String)
        case unknownKey(String, line: Int)
        case badValue(key: String, value: String)

        public var description: String {
            switch self {
            case .syntax(let line, let text): "line \(line): expected key = value, got \(text)"
            case .unknownKey(let k, let line): "line \(line): unknown setting \(k)"
            case .badValue(let k, let v): "bad value for \(k): \(v)"
            }
        }
    }
}
