import SimplexFoundation

/// A replica of a chunk: where it is stored, its ID there and the key that authorizes
/// commands on it (the recipient's key, or the sender's in a sender description).
public struct FileChunkReplica: Sendable, Equatable {
    public var server: XFTPServerAddress
    public var replicaId: [UInt8]
    public var replicaKey: AnyPrivateKey

    public init(server: XFTPServerAddress, replicaId: [UInt8], replicaKey: AnyPrivateKey) {
        self.server = server
        self.replicaId = replicaId
        self.replicaKey = replicaKey
    }
}

/// One chunk of the encrypted file: number (from 1), size, SHA-256 digest and its replicas.
public struct FileChunk: Sendable, Equatable {
    public var chunkNo: Int
    public var chunkSize: UInt32
    public var digest: [UInt8]
    public var replicas: [FileChunkReplica]

    public init(chunkNo: Int, chunkSize: UInt32, digest: [UInt8], replicas: [FileChunkReplica]) {
        self.chunkNo = chunkNo
        self.chunkSize = chunkSize
        self.digest = digest
        self.replicas = replicas
    }
}

/// A description too large to send inline points to a description file uploaded as a file of
/// its own: its size and digest.
public struct RedirectFileInfo: Sendable, Equatable {
    public var size: Int64
    public var digest: [UInt8]

    public init(size: Int64, digest: [UInt8]) {
        self.size = size
        self.digest = digest
    }
}

/// An XFTP file description (xftp.md "File description"): what a party needs to fetch or manage
/// the chunks of one encrypted file. Its text form is the reference's YAML, byte for byte.
public struct FileDescription: Sendable, Equatable {
    public var party: FileParty
    /// Size of the encrypted file (the sum of the chunk sizes).
    public var size: Int64
    /// SHA-512 of the encrypted file.
    public var digest: [UInt8]
    /// The 32-byte secretbox key and 24-byte nonce of the file encryption.
    public var key: [UInt8]
    public var nonce: [UInt8]
    /// The usual chunk size; chunks of another size say so in their replica lines.
    public var chunkSize: UInt32
    public var chunks: [FileChunk]
    public var redirect: RedirectFileInfo?

    public init(party: FileParty, size: Int64, digest: [UInt8], key: [UInt8], nonce: [UInt8], chunkSize: UInt32,
                chunks: [FileChunk], redirect: RedirectFileInfo? = nil) {
        self.party = party
        self.size = size
        self.digest = digest
        self.key = key
        self.nonce = nonce
        self.chunkSize = chunkSize
        self.chunks = chunks
        self.redirect = redirect
    }

    /// Separator between several descriptions in one text (`fdSeparator`).
    public static let separator = "################################\n"
    /// Descriptions up to this URL length fit a QR code of the next size (`qrSizeLimit`).
    public static let qrSizeLimit = 1002
    /// Files up to 1 GB are supported by clients (`maxFileSize`); 5 GB is the hard limit.
    public static let maxFileSize: Int64 = 1024 * 1024 * 1024
    public static let maxFileSizeHard: Int64 = 5 * 1024 * 1024 * 1024

    public enum ValidationError: Error, Equatable, Sendable {
        case chunkNumbers
        case totalSize
        case wrongParty
    }

    /// `validateFileDescription`: chunk numbers 1...n in order, sizes adding up to `size`.
    public func validate() throws(ValidationError) {
        guard chunks.map(\.chunkNo) == Array(1..<(chunks.count + 1)) else { throw .chunkNumbers }
        let total = chunks.reduce(Int64(0)) { $0 + Int64($1.chunkSize) }
        guard total == size else { throw .totalSize }
    }

    // MARK: YAML

    /// `strEncode`: the reference's YAML bytes.
    public var yaml: String {
        var top: [(String, YAMLNode)] = [
            ("chunkSize", .scalar(FileSizeText.encode(Int64(chunkSize)), quoted: false)),
            ("digest", .scalar(Base64Text.encode(digest), quoted: false)),
            ("key", .scalar(Base64Text.encode(key), quoted: false)),
            ("nonce", .scalar(Base64Text.encode(nonce), quoted: false)),
            ("party", .scalar(party.rawValue, quoted: false)),
        ]
        if let redirect {
            top.append(("redirect", .mapping([
                ("digest", .scalar(Base64Text.encode(redirect.digest), quoted: false)),
                ("size", .number(redirect.size)),
            ])))
        }
        let groups = Self.groupReplicasByServer(chunks, defaultChunkSize: chunkSize)
        top.append(("replicas", .sequence(groups.map { g in
            .mapping([
                ("chunks", .sequence(g.lines.map { .scalar($0, quoted: false) })),
                ("server", .scalar(g.server.description, quoted: false)),
            ])
        })))
        top.append(("size", .scalar(FileSizeText.encode(size), quoted: false)))
        return YAMLWriter.write(.mapping(top))
    }

    /// Replica lines grouped per server, servers in the reference's sort order (`groupAllWith`),
    /// each line `chunkNo:id:key[:digest][:size]` (digest and a non-default size on the
    /// first replica of a chunk only).
    static func groupReplicasByServer(_ chunks: [FileChunk], defaultChunkSize: UInt32) -> [(server: XFTPServerAddress, lines: [String])] {
        var flat: [(XFTPServerAddress, String)] = []
        for c in chunks {
            for (i, r) in c.replicas.enumerated() {
                var line = "\(c.chunkNo):\(Base64Text.encode(r.replicaId)):\(Base64Text.encode(r.replicaKey.pkcs8Encoded))"
                if i == 0 {
                    line += ":" + Base64Text.encode(c.digest)
                    if c.chunkSize != defaultChunkSize { line += ":" + FileSizeText.encode(Int64(c.chunkSize)) }
                }
                flat.append((r.server, line))
            }
        }
        // A stable sort keeps the order of lines within one server, as sortWith does.
        let sorted = flat.enumerated().sorted { a, b in
            if a.element.0 != b.element.0 { return a.element.0 < b.element.0 }
            return a.offset < b.offset
        }.map(\.element)
        var groups: [(server: XFTPServerAddress, lines: [String])] = []
        for (s, l) in sorted {
            if let last = groups.last, last.server == s {
                groups[groups.count - 1].lines.append(l)
            } else {
                groups.append((s, [l]))
            }
        }
        return groups
    }

    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case yaml(String)
        case field(String)
        case replicas(String)

        public var description: String {
            switch self {
            case .yaml(let w): "bad YAML: \(w)"
            case .field(let f): "bad or missing field: \(f)"
            case .replicas(let w): "bad replicas: \(w)"
            }
        }
    }

    /// `strDecode` of a YAML description (not validated; see `validate`).
    public init(yaml text: String) throws(ParseError) {
        let root: YAMLNode
        do {
            root = try YAMLReader.parse(text)
        } catch {
            throw .yaml(error.description)
        }
        func str(_ k: String, in n: YAMLNode = root) throws(ParseError) -> String {
            guard let v = n.value(k)?.text else { throw .field(k) }
            return v
        }
        func b64(_ k: String, in n: YAMLNode = root) throws(ParseError) -> [UInt8] {
            guard let v = Base64Text.decode(try str(k, in: n)) else { throw .field(k) }
            return v
        }
        guard let p = FileParty(rawValue: try str("party")) else { throw .field("party") }
        guard let size = FileSizeText.decode(try str("size")) else { throw .field("size") }
        guard let cs = FileSizeText.decode(try str("chunkSize")), let chunkSize = UInt32(exactly: cs) else { throw .field("chunkSize") }
        let key = try b64("key")
        guard key.count == 32 else { throw .field("key") }
        let nonce = CryptoBox.nonce(from: try b64("nonce"))
        let digest = try b64("digest")
        var redirect: RedirectFileInfo?
        if let r = root.value("redirect"), r != .scalar("", quoted: false) {
            guard case .number(let rs) = r.value("size") else { throw .field("redirect.size") }
            redirect = RedirectFileInfo(size: rs, digest: try b64("digest", in: r))
        }
        guard case .sequence(let groups) = root.value("replicas") else { throw .field("replicas") }
        var replicas: [ServerReplica] = []
        for g in groups {
            guard let st = g.value("server")?.text, let server = XFTPServerAddress(parsing: st, allowAuth: false) else { throw .field("server") }
            guard case .sequence(let lines) = g.value("chunks") else { throw .field("chunks") }
            for l in lines {
                guard let t = l.text, let r = ServerReplica(line: t, server: server) else { throw .replicas("bad replica line") }
                replicas.append(r)
            }
        }
        self.init(party: p, size: size, digest: digest, key: key, nonce: nonce, chunkSize: chunkSize,
                  chunks: try Self.foldReplicas(replicas, defaultChunkSize: chunkSize), redirect: redirect)
    }

    /// One replica line of the YAML.
    struct ServerReplica {
        var chunkNo: Int
        var server: XFTPServerAddress
        var replicaId: [UInt8]
        var replicaKey: AnyPrivateKey
        var digest: [UInt8]?
        var chunkSize: UInt32?

        init?(line: String, server: XFTPServerAddress) {
            let parts = line.split(separator: ":", omittingEmptySubsequences: false)
            guard (3...5).contains(parts.count), parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(parts[0]),
                  let id = Base64Text.decode(parts[1]), let keyDer = Base64Text.decode(parts[2]),
                  let key = try? AnyPrivateKey(pkcs8Encoded: keyDer), XFTPFields.authAlgorithms.contains(key.algorithm)
            else { return nil }
            chunkNo = n
            self.server = server
            replicaId = id
            replicaKey = key
            if parts.count >= 4 {
                guard let d = Base64Text.decode(parts[3]) else { return nil }
                digest = d
            }
            if parts.count == 5 {
                guard let s = FileSizeText.decode(parts[4]), let s32 = UInt32(exactly: s) else { return nil }
                chunkSize = s32
            }
        }
    }

    /// `foldReplicasToChunks`: digests and sizes must agree between replicas of a chunk, and each
    /// chunk needs a digest on some replica.
    static func foldReplicas(_ rs: [ServerReplica], defaultChunkSize: UInt32) throws(ParseError) -> [FileChunk] {
        var sizes: [Int: UInt32] = [:], digests: [Int: [UInt8]] = [:]
        for r in rs {
            if let s = r.chunkSize {
                if let old = sizes[r.chunkNo], old != s { throw .replicas("different size or digest in chunk replicas") }
                sizes[r.chunkNo] = s
            }
            if let d = r.digest {
                if let old = digests[r.chunkNo], old != d { throw .replicas("different size or digest in chunk replicas") }
                digests[r.chunkNo] = d
            }
        }
        var chunks: [Int: FileChunk] = [:]
        for r in rs {
            let replica = FileChunkReplica(server: r.server, replicaId: r.replicaId, replicaKey: r.replicaKey)
            if chunks[r.chunkNo] != nil {
                chunks[r.chunkNo]!.replicas.append(replica)
            } else {
                guard let d = digests[r.chunkNo] else { throw .replicas("no digest for chunk") }
                chunks[r.chunkNo] = FileChunk(chunkNo: r.chunkNo, chunkSize: sizes[r.chunkNo] ?? defaultChunkSize, digest: d, replicas: [replica])
            }
        }
        return chunks.keys.sorted().map { chunks[$0]! }
    }
}
