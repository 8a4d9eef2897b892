import SMPTransport
import SimplexFoundation

/// The out-of-band address of an SMP queue (simplex-messaging.md "SMP queue URI", simplexmq
/// `SMPQueueUri`): `smp://<keyHash>@host[,host][:port]/<senderId>#/?v=1-4&dh=<x509 key>[&q=m|c][&k=s]`.
/// The sender needs the server, the sender ID and the recipient's DH key to encrypt to it.
public struct SMPQueueURI: Sendable, Hashable {
    public let server: SMPServerAddress
    public let senderId: [UInt8]
    /// SMP client versions the queue's owner supports.
    public let clientVersions: VersionRange
    /// The recipient's X25519 key for the per-queue crypto_box.
    public let dhPublicKey: X25519PublicKey
    /// Messaging or contact queue; nil when the address does not say (old links).
    public let queueMode: QueueMode?

    /// The sender may secure the queue itself with SKEY (simplexmq `senderCanSecure`).
    public var senderCanSecure: Bool { QueueMode.senderCanSecure(queueMode) }

    public init(
        server: SMPServerAddress, senderId: [UInt8], clientVersions: VersionRange = SMPClientVersion.supported,
        dhPublicKey: X25519PublicKey, queueMode: QueueMode?
    ) {
        self.server = server
        self.senderId = senderId
        self.clientVersions = clientVersions
        self.dhPublicKey = dhPublicKey
        self.queueMode = queueMode
    }

    /// A queue whose only known property is whether the sender secures it: a messaging queue
    /// if it does, a contact queue otherwise.
    public init(
        server: SMPServerAddress, senderId: [UInt8], clientVersions: VersionRange = SMPClientVersion.supported,
        dhPublicKey: X25519PublicKey, senderCanSecure: Bool
    ) {
        self.init(
            server: server, senderId: senderId, clientVersions: clientVersions, dhPublicKey: dhPublicKey,
            queueMode: QueueMode(senderCanSecure: senderCanSecure))
    }

    /// The address with a version range, as `SMPQueueInfo` becomes a URI again (simplexmq `toVersionRangeT`).
    public init(_ info: SMPQueueInfo, clientVersions: VersionRange) {
        self.init(
            server: info.server, senderId: info.senderId, clientVersions: clientVersions, dhPublicKey: info.dhPublicKey,
            queueMode: info.queueMode)
    }

    /// The queue at one client version (simplexmq `toVersionT`: the address is unchanged; what
    /// a version cannot carry is left out when it is encoded).
    public func info(version: UInt16) -> SMPQueueInfo {
        SMPQueueInfo(clientVersion: version, server: server, senderId: senderId, dhPublicKey: dhPublicKey, queueMode: queueMode)
    }

    /// The queue at the highest client version both sides support (simplexmq `compatibleVersion`).
    public func compatibleInfo(supported: VersionRange = SMPClientVersion.supported) throws(LinkError) -> SMPQueueInfo {
        guard let v = clientVersions.highestCommon(with: supported) else {
            throw .incompatibleVersion("SMP client versions \(clientVersions), supported \(supported)")
        }
        return info(version: v)
    }

    // MARK: text form

    /// Parses a queue URI as simplexmq's `strP` does: optional "/" before "#" and before "?",
    /// padded or unpadded base64url, extra hosts in `srv`, `q=m`/`q=c`/`k=s`, unknown parameters
    /// ignored, the DH key also right after "#", and the legacy unversioned form `#<dhKey>`
    /// (version 1). Below version 2, a preset server's onion host is added.
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
        // simplexmq: `optional strP` (a DH key right after "#"), then "/?" or "?" and the query;
        // or, failing that, only a DH key (unversioned, version 1).
        let key = fragment.prefix(while: { $0 != "/" && $0 != "?" })
        let keyInFragment: Substring? = key.isEmpty ? nil : key
        fragment = fragment[key.endIndex...]
        let fragmentHadSlash = fragment.hasPrefix("/")
        if fragmentHadSlash { fragment = fragment.dropFirst() }
        let versions: VersionRange
        let dhText: String
        var extraHosts: [String] = []
        var mode: QueueMode?
        if fragment.isEmpty, let keyInFragment, !fragmentHadSlash {
            versions = VersionRange(SMPClientVersion.initial)
            dhText = String(keyInFragment)
        } else {
            guard fragment.hasPrefix("?") else { throw .invalidQueueURI("expected \"?\" after \"#\"") }
            let query = try LinkQuery(parsing: fragment)
            let v = try query.requiredText("v")
            guard let r = VersionRange(parsing: v) else {
                throw .invalidParameter(name: "v", reason: "not a version range: \(LinkSyntax.excerpt(v))")
            }
            versions = r
            if let keyInFragment {
                dhText = String(keyInFragment)
            } else {
                dhText = try query.requiredText("dh")
            }
            if let srv = query.value("srv"), !srv.isEmpty {
                guard let text = LinkSyntax.asciiText(srv) else { throw .invalidParameter(name: "srv", reason: "non-ASCII or space characters") }
                extraHosts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
            switch query.value("q") {
            case [UInt8(ascii: "m")]: mode = .messaging
            case [UInt8(ascii: "c")]: mode = .contact
            default: mode = query.value("k") == [UInt8(ascii: "s")] ? .messaging : nil
            }
        }
        let dh = try Self.dhKey(dhText)
        if !extraHosts.isEmpty {
            do {
                server = try server.addingHosts(extraHosts)
            } catch {
                throw .invalidParameter(name: "srv", reason: "\(error)")
            }
        }
        if versions.max < SMPClientVersion.serverHostnames { server = PresetServerHosts.update(server) }
        self.init(server: server, senderId: senderId, clientVersions: versions, dhPublicKey: dh, queueMode: mode)
    }

    /// simplexmq's `strEncode`: padded base64url; from minimum version 2 all hosts in the
    /// authority, below it the first host there and the others in `srv`; `q=m|c` when the mode
    /// is known; `k=s` when the sender can secure the queue and the minimum version is below 4.
    public var uriString: String {
        let legacy = clientVersions.min < SMPClientVersion.serverHostnames
        var params: [(String, [UInt8])] = [
            ("v", Array(clientVersions.description.utf8)),
            ("dh", Array(Base64URL.encode(dhPublicKey.x509Encoded).utf8)),
        ]
        if let queueMode { params.append(("q", Array(queueMode.queryValue.utf8))) }
        if senderCanSecure, clientVersions.min < SMPClientVersion.shortLinks { params.append(("k", Array("s".utf8))) }
        let authority = (legacy ? server.firstHostOnly : server).description
        if legacy, server.hosts.count > 1 { params.append(("srv", Array(server.hosts.dropFirst().joined(separator: ",").utf8))) }
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

/// simplexmq's binary `SMPQueueUri` (inside QADD and short link data):
/// `clientVRange smpServer senderId dhPublicKey`, then from minimum version 4 the queue mode
/// ("M"/"C", or nothing when unknown); below it "T"/"F" (`sndSecure`) when the minimum version
/// is 3 or more, or the maximum is and the flag is true; otherwise nothing.
extension SMPQueueURI: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        clientVersions.encode(into: &e)
        try server.encode(into: &e)
        try AgentWire.shortString(senderId, into: &e)
        try AgentWire.shortString(dhPublicKey.x509Encoded, into: &e)
        if clientVersions.min >= SMPClientVersion.shortLinks {
            if let queueMode { e.byte(queueMode.binaryTag) }
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
        self.init(server: server, senderId: senderId, clientVersions: versions, dhPublicKey: dh, queueMode: QueueMode.decodeOptional(&d))
    }
}
