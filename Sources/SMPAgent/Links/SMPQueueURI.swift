import SMPTransport
import SimplexFoundation

/// The out-of-band address of an SMP queue (simplex-messaging.md "SMP queue URI"):
/// `smp://<keyHash>@host[,host][:port]/<senderId>#/?v=1-3&dh=<x509 key>[&k=s]`.
/// The sender needs the server, the sender ID and the recipient's DH key to encrypt to it.
public struct SMPQueueURI: Sendable, Hashable {
    public let server: SMPServerAddress
    public let senderId: [UInt8]
    /// SMP client versions the queue's owner supports.
    public let clientVersions: VersionRange
    /// The recipient's X25519 key for the per-queue crypto_box.
    public let dhPublicKey: X25519PublicKey
    /// The sender may secure the queue itself with SKEY (client version 3, "k=s").
    public let senderCanSecure: Bool

    public init(
        server: SMPServerAddress, senderId: [UInt8], clientVersions: VersionRange = SMPClientVersion.supported,
        dhPublicKey: X25519PublicKey, senderCanSecure: Bool
    ) {
        self.server = server
        self.senderId = senderId
        self.clientVersions = clientVersions
        self.dhPublicKey = dhPublicKey
        self.senderCanSecure = senderCanSecure
    }

    /// The address with a version range, as `SMPQueueInfo` becomes a URI again (simplexmq `toVersionRangeT`).
    public init(_ info: SMPQueueInfo, clientVersions: VersionRange) {
        self.init(
            server: info.server, senderId: info.senderId, clientVersions: clientVersions, dhPublicKey: info.dhPublicKey,
            senderCanSecure: info.senderCanSecure)
    }

    /// The queue at one client version (simplexmq `toVersionT`); SKEY needs version 3.
    public func info(version: UInt16) -> SMPQueueInfo {
        SMPQueueInfo(
            clientVersion: version, server: server, senderId: senderId, dhPublicKey: dhPublicKey,
            senderCanSecure: senderCanSecure && version >= SMPClientVersion.senderAuthKey)
    }

    /// The queue at the highest client version both sides support.
    public func compatibleInfo(supported: VersionRange = SMPClientVersion.supported) throws(LinkError) -> SMPQueueInfo {
        guard let v = clientVersions.highestCommon(with: supported) else {
            throw .incompatibleVersion("SMP client versions \(clientVersions), supported \(supported)")
        }
        return info(version: v)
    }

    // MARK: text form

    /// Parses a queue URI as simplexmq's `strP` does: optional "/" before "#" and before "?",
    /// padded or unpadded base64url, extra hosts in `srv`, `q=m`/`q=c`/`k=s`, unknown parameters
    /// ignored, and the legacy unversioned form `#<dhKey>` (version 1).
    public init(parsing s: String) throws(LinkError) {
        try LinkSyntax.checkInput(s)
        try self.init(checkedText: Substring(s))
    }

    init(checkedText s: Substring) throws(LinkError) {
        let scheme = "smp://"
        guard s.hasPrefix(scheme) else {
            throw .unsupportedScheme(LinkSyntax.excerpt(s.prefix(while: { $0 != ":" })))
        }
        let rest = s.dropFirst(scheme.count)
        guard let hash = rest.firstIndex(of: "#") else { throw .invalidQueueURI("no \"#\" before the parameters") }
        let beforeHash = rest[..<hash]
        guard let slash = beforeHash.firstIndex(of: "/") else { throw .invalidQueueURI("no sender ID") }
        var idText = beforeHash[beforeHash.index(after: slash)...]
        if idText.hasSuffix("/") { idText = idText.dropLast() }
        guard let senderId = LinkSyntax.base64url(idText) else {
            throw .invalidQueueURI(idText.isEmpty ? "no sender ID" : "sender ID is not base64url")
        }
        guard senderId.count <= 255 else { throw .invalidQueueURI("sender ID of \(senderId.count) bytes") }
        var server = try Self.server(scheme + beforeHash[..<slash])

        var fragment = rest[rest.index(after: hash)...]
        var legacyKey: Substring?
        if !fragment.hasPrefix("/?"), !fragment.hasPrefix("?") {
            // simplexmq's unversioned form puts the DH key right after "#".
            let key = fragment.prefix(while: { $0 != "/" && $0 != "?" })
            legacyKey = key
            fragment = fragment[key.endIndex...]
        }
        if fragment.hasPrefix("/") { fragment = fragment.dropFirst() }
        guard fragment.isEmpty || fragment.hasPrefix("?") else { throw .invalidQueueURI("expected \"?\" after \"#\"") }

        let query = try LinkQuery(parsing: fragment)
        let versions: VersionRange
        if fragment.isEmpty {
            versions = VersionRange(SMPClientVersion.initial)
        } else {
            let v = try query.requiredText("v")
            guard let r = VersionRange(parsing: v) else {
                throw .invalidParameter(name: "v", reason: "not a version range: \(LinkSyntax.excerpt(v))")
            }
            versions = r
        }
        let dhText: String
        if let legacyKey {
            dhText = String(legacyKey)
        } else {
            dhText = try query.requiredText("dh")
        }
        let dh = try Self.dhKey(dhText)
        if let srv = try query.text("srv") {
            let extra = srv.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            do {
                server = try SMPServerAddress(keyHash: server.keyHash, hosts: server.hosts + extra, port: server.port)
            } catch {
                throw .invalidParameter(name: "srv", reason: "\(error)")
            }
        }
        let canSecure: Bool
        switch try query.text("q") {
        case "m": canSecure = true
        case "c": canSecure = false
        default: canSecure = (try query.text("k")) == "s"
        }
        self.init(server: server, senderId: senderId, clientVersions: versions, dhPublicKey: dh, senderCanSecure: canSecure)
    }

    /// simplexmq's `strEncode`: padded base64url; from minimum version 2 all hosts in the
    /// authority, below it the first host there and the others in `srv`; `k=s` when the sender
    /// can secure the queue.
    public var uriString: String {
        let legacy = clientVersions.min < SMPClientVersion.serverHostnames
        var params: [(String, [UInt8])] = [
            ("v", Array(clientVersions.description.utf8)),
            ("dh", Array(Base64URL.encode(dhPublicKey.x509Encoded).utf8)),
        ]
        if senderCanSecure { params.append(("k", Array("s".utf8))) }
        var authority = "smp://" + Base64URL.encode(server.keyHash) + "@"
        if legacy {
            authority += server.hosts[0]
            if server.hosts.count > 1 { params.append(("srv", Array(server.hosts.dropFirst().joined(separator: ",").utf8))) }
        } else {
            authority += server.hosts.joined(separator: ",")
        }
        if let port = server.port { authority += ":\(port)" }
        return authority + "/" + Base64URL.encode(senderId) + "#/?" + LinkQuery.render(params)
    }

    private static func server(_ text: String) throws(LinkError) -> SMPServerAddress {
        do {
            return try SMPServerAddress(parsing: text)
        } catch {
            switch error {
            case .badScheme: throw .invalidQueueURI("bad server address")
            case .badKeyHash: throw .invalidQueueURI("bad server identity (key hash)")
            case .missingHost: throw .invalidQueueURI("missing or empty server host")
            case .badHost(let h): throw .invalidQueueURI("bad server host \"\(LinkSyntax.excerpt(h))\"")
            case .badPort: throw .invalidQueueURI("bad server port")
            }
        }
    }

    static func dhKey(_ text: String) throws(LinkError) -> X25519PublicKey {
        guard let der = LinkSyntax.base64url(text) else { throw .invalidParameter(name: "dh", reason: "not base64url") }
        do {
            return try X25519PublicKey(x509Encoded: der)
        } catch {
            throw .invalidParameter(name: "dh", reason: "\(error)")
        }
    }
}

extension SMPQueueURI: CustomStringConvertible {
    public var description: String { uriString }
}

/// simplexmq's binary `SMPQueueUri` (inside QADD): `clientVRange smpServer senderId dhPublicKey`,
/// then `sndSecure` ("T"/"F") from minimum version 3 or when the range reaches 3 and it is true.
extension SMPQueueURI: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        clientVersions.encode(into: &e)
        try server.encode(into: &e)
        try AgentWire.shortString(senderId, into: &e)
        try AgentWire.shortString(dhPublicKey.x509Encoded, into: &e)
        if clientVersions.min >= 4 {
            if senderCanSecure { e.byte(UInt8(ascii: "M")) }
        } else if clientVersions.min >= SMPClientVersion.senderAuthKey
            || (clientVersions.max >= SMPClientVersion.senderAuthKey && senderCanSecure)
        {
            e.bool(senderCanSecure)
        }
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        let versions = try VersionRange(from: &d)
        let server = try SMPServerAddress(from: &d)
        let senderId = try AgentWire.decoding { try d.shortString() }
        let dh = try AgentWire.decodeX25519(&d)
        self.init(
            server: server, senderId: senderId, clientVersions: versions, dhPublicKey: dh,
            senderCanSecure: SMPQueueInfo.decodeQueueMode(&d))
    }
}
