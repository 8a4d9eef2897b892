import XFTPProtocol

/// xftp-server settings, kept in `file-server.ini` in the reference's sections and key names
/// (`[STORE_LOG] enable, expire_files_hours`, `[AUTH] new_files, create_password`,
/// `[TRANSPORT] host, port`, `[FILES] path, storage_quota`) so operators can reuse theirs.
public struct XFTPServerConfig: Sendable, Equatable {
    public static let fileName = "file-server.ini"
    public static let storeLogFileName = "file-server-store.log"
    /// `defFileExpirationHours`.
    public static let defaultExpirationHours: Int64 = 48

    /// Host name(s) printed in the server address.
    public var host = "127.0.0.1"
    /// Address the server listens on.
    public var bindAddress = "127.0.0.1"
    public var port = 443
    /// Where chunk files are kept, one file per chunk named by its sender ID.
    public var filesPath = "./files"
    /// Total bytes of uploaded chunks the server accepts (nil: no limit).
    public var fileSizeQuota: Int64?
    /// The only sizes FNEW may register (`allowedChunkSizes`).
    public var allowedChunkSizes: [UInt32] = XFTPChunkSizes.all
    /// Off: no new files, existing ones can still be downloaded (decommissioning).
    public var allowNewFiles = true
    /// Password that FNEW must carry (`newFileBasicAuth`); nil lets anyone upload.
    public var createPassword: BasicAuth?
    /// Keep file records in the store log (`[STORE_LOG] enable`).
    public var storeLog = true
    /// Seconds after which chunks are deleted (nil: never); default 48 hours.
    public var fileExpiration: Int64? = defaultExpirationHours * 3600
    /// How often expired chunks are looked for (`checkInterval`, 2 hours).
    public var expirationCheckInterval: Int64 = 2 * 3600
    /// Bytes in a file ID (`fileIdSize`).
    public var fileIdSize = 16
    /// Seconds to receive one chunk body (`fileTimeout`, 5 minutes).
    public var fileTimeout: Int64 = 300
    /// fsync chunk files and the store log before answering (survives power loss, not only kill -9).
    public var fsync = false
    /// `[INACTIVE_CLIENTS] disconnect`: close connections without a request for `inactiveClientTTL`
    /// seconds, checked every `inactiveClientCheckInterval` (off by default, as the reference).
    public var disconnectInactiveClients = false
    public var inactiveClientTTL: Int64 = 21600
    public var inactiveClientCheckInterval: Int64 = 3600

    public init() {}

    public enum ConfigError: Error, Equatable, CustomStringConvertible {
        case syntax(line: Int, text: String)
        case badValue(key: String, value: String)

        public var description: String {
            switch self {
            case .syntax(let l, let t): "line \(l): cannot read \"\(t)\""
            case .badValue(let k, let v): "bad value for \(k): \(v)"
            }
        }
    }

    /// Reads `[SECTION]` / `key = value` lines; lines starting with `#` or `;` are comments; keys this server does not
    /// use (the reference's web and stats settings) are accepted and ignored.
    public init(ini text: String) throws(ConfigError) {
        self.init()
        var section = ""
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // Whole-line comments only: a password may contain '#'.
            let t = String(raw).trimmed
            if t.isEmpty || t.hasPrefix("#") || t.hasPrefix(";") { continue }
            if t.hasPrefix("[") {
                guard t.hasSuffix("]") else { throw .syntax(line: n + 1, text: t) }
                section = String(t.dropFirst().dropLast())
                continue
            }
            let kv = t.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).trimmed }
            guard kv.count == 2 else { throw .syntax(line: n + 1, text: t) }
            try set(section: section, key: kv[0], value: kv[1])
        }
    }

    public mutating func set(section: String, key: String, value: String) throws(ConfigError) {
        func onOff() throws(ConfigError) -> Bool {
            switch value {
            case "on", "true", "yes": return true
            case "off", "false", "no": return false
            default: throw .badValue(key: key, value: value)
            }
        }
        func int() throws(ConfigError) -> Int64 {
            guard let v = Int64(value), v >= 0 else { throw .badValue(key: key, value: value) }
            return v
        }
        switch (section, key) {
        case ("STORE_LOG", "enable"): storeLog = try onOff()
        case ("STORE_LOG", "expire_files_hours"): fileExpiration = try int() * 3600
        case ("AUTH", "new_files"): allowNewFiles = try onOff()
        case ("AUTH", "create_password"):
            guard let a = BasicAuth(value), !value.isEmpty else { throw .badValue(key: key, value: "(password with invalid characters)") }
            createPassword = a
        case ("TRANSPORT", "host"): host = value
        case ("TRANSPORT", "bind"): bindAddress = value
        case ("TRANSPORT", "port"):
            let p = try int()
            guard p <= 65535 else { throw .badValue(key: key, value: value) }
            port = Int(p)
        case ("FILES", "path"): filesPath = value
        case ("FILES", "storage_quota"):
            guard let q = FileSizeText.decode(value) else { throw .badValue(key: key, value: value) }
            fileSizeQuota = q
        case ("FILES", "fsync"): fsync = try onOff()
        case ("INACTIVE_CLIENTS", "disconnect"): disconnectInactiveClients = try onOff()
        case ("INACTIVE_CLIENTS", "ttl"):
            let v = try int()
            guard v > 0 else { throw .badValue(key: key, value: value) }
            inactiveClientTTL = v
        case ("INACTIVE_CLIENTS", "check_interval"):
            let v = try int()
            guard v > 0 else { throw .badValue(key: key, value: value) }
            inactiveClientCheckInterval = v
        default: break
        }
    }

    /// The config file `init` writes, in the reference's layout.
    public var ini: String {
        """
        [INFORMATION]
        # AGPLv3 license requires that you make any source code modifications
        # available to the end users of the server.
        # source_code = https://github.com/simplex-chat/simplexmq

        [STORE_LOG]
        # Keep file records in an append-only log, compacted on start.
        enable = \(storeLog ? "on" : "off")

        # Expire files after the specified number of hours.
        expire_files_hours = \((fileExpiration ?? 0) / 3600)

        [AUTH]
        # Set new_files option to off to completely prohibit uploading new files.
        new_files = \(allowNewFiles ? "on" : "off")

        # Use create_password option to enable basic auth to upload new files.
        # The password should be used as part of server address in client configuration:
        # xftp://fingerprint:password@host1,host2
        \(createPassword.map { "create_password = \($0)" } ?? "# create_password = password to upload files (any printable ASCII characters without whitespace, '@', ':' and '/')")

        [TRANSPORT]
        # host is only used to print server address on start
        host = \(host)
        bind = \(bindAddress)
        port = \(port)

        [FILES]
        path = \(filesPath)
        \(fileSizeQuota.map { "storage_quota = \(FileSizeText.encode($0))" } ?? "# storage_quota = 10gb")
        # fsync = off

        [INACTIVE_CLIENTS]
        # TTL and interval to check inactive clients
        disconnect = \(disconnectInactiveClients ? "on" : "off")
        \(disconnectInactiveClients ? "" : "# ")ttl = \(inactiveClientTTL)
        \(disconnectInactiveClients ? "" : "# ")check_interval = \(inactiveClientCheckInterval)

        """
    }
}

extension String {
    var trimmed: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s = s.dropLast() }
        return String(s)
    }
}
