import DoubleRatchet
import SMPProtocol
import SMPTransport
import SimplexFoundation

// The data behind a short link (simplexmq Agent/Protocol.hs `FixedLinkData`, `ConnLinkData`,
// `UserContactData`, `OwnerAuth`, and Crypto/ShortLink.hs for keys and encryption).
//
// The link key is SHA3-256 of the encoded fixed data, so a link names exactly one full link.
// Both parts are signed by the link's root Ed25519 key (the user part may also be signed by an
// owner key the root authorized) and encrypted with a secretbox key derived from the link key.

/// The immutable part: agent versions, the root signing key and the full connection link.
public struct FixedLinkData: Sendable, Hashable {
    public var agentVersions: VersionRange
    public var rootKey: Ed25519PublicKey
    public var connReq: ConnectionRequestURI
    /// Application entity (a group's ID in simplex-chat); nil for contacts and invitations.
    public var linkEntityId: [UInt8]?

    public init(agentVersions: VersionRange, rootKey: Ed25519PublicKey, connReq: ConnectionRequestURI, linkEntityId: [UInt8]? = nil) {
        self.agentVersions = agentVersions
        self.rootKey = rootKey
        self.connReq = connReq
        self.linkEntityId = linkEntityId
    }

    public func encoded() throws(EncodingError) -> [UInt8] {
        var e = SMPEncoder(capacity: 2048)
        agentVersions.encode(into: &e)
        try AgentWire.shortString(rootKey.x509Encoded, into: &e)
        try connReq.encodeBinary(into: &e)
        if let linkEntityId { try AgentWire.shortString(linkEntityId, into: &e) }
        return e.bytes
    }

    /// Bytes after the optional entity ID are ignored, for later extensions (as simplexmq does).
    public init(decoding bytes: [UInt8]) throws(DecodingError) {
        var d = SMPDecoder(bytes)
        agentVersions = try VersionRange(from: &d)
        rootKey = try ShortLinkWire.ed25519Key(&d)
        connReq = try ConnectionRequestURI(decodingBinary: &d)
        linkEntityId = d.isAtEnd ? nil : try? AgentWire.decoding { try d.shortString() }
    }
}

/// One additional owner of a contact address's link data (simplexmq `OwnerAuth`): an ID that the
/// application chooses, the owner's key, and the signature of `ownerId || x509(ownerKey)` by the
/// root key or an earlier owner.
public struct LinkOwnerAuth: Sendable, Hashable {
    public var ownerId: [UInt8]
    public var ownerKey: Ed25519PublicKey
    public var signature: [UInt8]

    public init(ownerId: [UInt8], ownerKey: Ed25519PublicKey, signature: [UInt8]) {
        self.ownerId = ownerId
        self.ownerKey = ownerKey
        self.signature = signature
    }

    /// An owner authorized by `signer` (the link's root key or an earlier owner's key): the
    /// signature of `ownerId || x509(ownerKey)` (simplexmq `OwnerAuth`).
    public init(ownerId: [UInt8], ownerKey: Ed25519PublicKey, signedBy signer: Ed25519PrivateKey) throws(CryptoError) {
        self.init(ownerId: ownerId, ownerKey: ownerKey, signature: try signer.sign(ownerId + ownerKey.x509Encoded))
    }

    func encode(into e: inout SMPEncoder) throws(EncodingError) {
        var inner = SMPEncoder()
        try AgentWire.shortString(ownerId, into: &inner)
        try AgentWire.shortString(ownerKey.x509Encoded, into: &inner)
        try AgentWire.shortString(signature, into: &inner)
        try AgentWire.shortString(inner.bytes, into: &e)
    }

    /// Wrapped in a shortString so that later fields can be added and ignored.
    static func decode(_ d: inout SMPDecoder) throws(DecodingError) -> LinkOwnerAuth {
        var inner = SMPDecoder(try AgentWire.decoding { try d.shortString() })
        let id = try AgentWire.decoding { try inner.shortString() }
        let key = try ShortLinkWire.ed25519Key(&inner)
        let sig = try AgentWire.decoding { try inner.shortString() }
        return LinkOwnerAuth(ownerId: id, ownerKey: key, signature: sig)
    }

    var signedBytes: [UInt8] { ownerId + ownerKey.x509Encoded }
}

/// The mutable user part of a contact address's link data (simplexmq `UserContactData`).
public struct UserContactData: Sendable, Hashable {
    /// Whether connecting directly via the full link in the fixed data is allowed.
    public var direct: Bool
    public var owners: [LinkOwnerAuth]
    /// Alternative addresses (chat relays) for requests to this address.
    public var relays: [ShortLink]
    /// Opaque application data (the chat profile and settings in simplex-chat).
    public var userData: [UInt8]

    public init(direct: Bool = true, owners: [LinkOwnerAuth] = [], relays: [ShortLink] = [], userData: [UInt8]) {
        self.direct = direct
        self.owners = owners
        self.relays = relays
        self.userData = userData
    }
}

/// The user part as signed and encrypted (simplexmq `ConnLinkData`): mode, agent versions, data.
public enum ConnLinkData: Sendable, Hashable {
    case invitation(agentVersions: VersionRange, userData: [UInt8])
    case contact(agentVersions: VersionRange, UserContactData)

    public var mode: ConnectionMode {
        switch self {
        case .invitation: .invitation
        case .contact: .contact
        }
    }

    public var userData: [UInt8] {
        switch self {
        case .invitation(_, let d): d
        case .contact(_, let c): c.userData
        }
    }

    public func encoded() throws(EncodingError) -> [UInt8] {
        var e = SMPEncoder(capacity: 256)
        switch self {
        case .invitation(let vr, let data):
            e.byte(UInt8(ascii: "I"))
            vr.encode(into: &e)
            try ShortLinkWire.encodeUserData(data, into: &e)
        case .contact(let vr, let c):
            e.byte(UInt8(ascii: "C"))
            vr.encode(into: &e)
            e.bool(c.direct)
            try ShortLinkWire.encodeList(c.owners, into: &e) { (e, o) throws(EncodingError) in try o.encode(into: &e) }
            try ShortLinkWire.encodeList(c.relays, into: &e) { (e, l) throws(EncodingError) in try l.encodeBinary(into: &e) }
            try ShortLinkWire.encodeUserData(c.userData, into: &e)
        }
        return e.bytes
    }

    /// Bytes after the user data are ignored, for later extensions (as simplexmq does).
    public init(decoding bytes: [UInt8]) throws(DecodingError) {
        var d = SMPDecoder(bytes)
        let tag = try AgentWire.decoding { try d.byte() }
        let vr = try VersionRange(from: &d)
        switch tag {
        case UInt8(ascii: "I"):
            self = .invitation(agentVersions: vr, userData: try ShortLinkWire.decodeUserData(&d))
        case UInt8(ascii: "C"):
            let direct = try AgentWire.decoding { try d.bool() }
            let owners = try ShortLinkWire.decodeList(&d) { (d) throws(DecodingError) in try LinkOwnerAuth.decode(&d) }
            let relays = try ShortLinkWire.decodeList(&d) { (d) throws(DecodingError) in try ShortLink(decodingBinary: &d) }
            let data = try ShortLinkWire.decodeUserData(&d)
            self = .contact(agentVersions: vr, UserContactData(direct: direct, owners: owners, relays: relays, userData: data))
        case let b:
            throw .invalid("bad link data mode \(b)")
        }
    }
}

/// Keys, signing and encryption of link data (simplexmq Crypto/ShortLink.hs).
public enum ShortLinkCrypto {
    /// Padded plaintext sizes: 2048 and 13824 bytes on the wire with the nonce and the tag.
    public static let fixedDataPaddedLength = 2008
    public static let userDataPaddedLength = 13784

    /// A contact address's link ID (24 bytes) and secretbox key: HKDF-SHA512 of the link key,
    /// empty salt, info "SimpleXContactLink", 56 bytes split 24/32.
    public static func contactKeys(linkKey: [UInt8]) -> (linkId: [UInt8], key: [UInt8]) {
        let okm = (try? CryptoHash.hkdf(salt: [], ikm: linkKey, info: Array("SimpleXContactLink".utf8), count: 56)) ?? []
        return (Array(okm.prefix(24)), Array(okm.dropFirst(24)))
    }

    /// An invitation's secretbox key (its link ID is chosen by the relay): info "SimpleXInvLink".
    public static func invitationKey(linkKey: [UInt8]) -> [UInt8] {
        (try? CryptoHash.hkdf(salt: [], ikm: linkKey, info: Array("SimpleXInvLink".utf8), count: 32)) ?? []
    }

    /// `shortString(signature) || data`.
    static func sign(_ data: [UInt8], with key: Ed25519PrivateKey) throws(AgentError) -> [UInt8] {
        do {
            return [UInt8(Ed25519PublicKey.signatureLength)] + (try key.sign(data)) + data
        } catch {
            throw .internalError("link data signature: \(error)")
        }
    }

    /// Signs the fixed data; returns the link key (SHA3-256 of the unsigned encoding) and the signed bytes.
    static func signFixedData(_ fd: FixedLinkData, rootKey: Ed25519PrivateKey) throws(AgentError) -> (linkKey: [UInt8], signed: [UInt8]) {
        let bytes: [UInt8]
        do { bytes = try fd.encoded() } catch { throw .internalError("fixed link data: \(error)") }
        return (CryptoHash.sha3_256(bytes), try sign(bytes, with: rootKey))
    }

    static func signUserData(_ d: ConnLinkData, key: Ed25519PrivateKey) throws(AgentError) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try d.encoded() } catch { throw .command(.size, "user link data: \(error)") }
        return try sign(bytes, with: key)
    }

    /// `nonce || secretbox(pad(signed, paddedLength))`.
    static func encrypt(_ signed: [UInt8], key: [UInt8], paddedLength: Int) throws(AgentError) -> [UInt8] {
        // The padding's 2-byte length prefix comes out of the padded length.
        guard signed.count <= paddedLength - 2 else {
            throw .command(.size, "link data of \(signed.count) bytes exceeds \(paddedLength - 2)")
        }
        let nonce = SecureRandom.bytes(CryptoBox.nonceLength)
        do {
            return nonce + (try CryptoBox.sbEncrypt(sbKey: key, nonce: nonce, message: signed, paddedLength: paddedLength))
        } catch {
            throw .internalError("link data encryption: \(error)")
        }
    }

    /// Decrypts, checks the hash, the signatures and the owner chain (simplexmq `decryptLinkData`).
    public static func decrypt(linkKey: [UInt8], key: [UInt8], data: QueueLinkData) throws(AgentError) -> (FixedLinkData, ConnLinkData) {
        let (sig1, fdBytes) = try open(data.fixedData, key: key)
        let (sig2, udBytes) = try open(data.userData, key: key)
        let fd: FixedLinkData
        let ud: ConnLinkData
        do {
            fd = try FixedLinkData(decoding: fdBytes)
            ud = try ConnLinkData(decoding: udBytes)
        } catch {
            throw .agent(.message("link data: \(error)"))
        }
        guard CryptoHash.sha3_256(fdBytes) == linkKey else { throw .link(.linkData("link data hash")) }
        guard fd.rootKey.isValidSignature(sig1, for: fdBytes) else { throw .link(.linkData("link data signature")) }
        guard ud.mode == fd.connReq.mode else { throw .link(.linkData("link data mode")) }
        switch ud {
        case .invitation:
            guard fd.rootKey.isValidSignature(sig2, for: udBytes) else { throw .link(.linkData("user data signature")) }
        case .contact(_, let c):
            try validateOwners(rootKey: fd.rootKey, c.owners)
            guard fd.rootKey.isValidSignature(sig2, for: udBytes) || c.owners.contains(where: { $0.ownerKey.isValidSignature(sig2, for: udBytes) }) else {
                throw .link(.linkData("user data signature"))
            }
        }
        return (fd, ud)
    }

    /// simplexmq `validateLinkOwners`: each owner is authorized by the root key or an earlier
    /// owner, and no owner repeats an ID or a key (or uses the root key).
    static func validateOwners(rootKey: Ed25519PublicKey, _ owners: [LinkOwnerAuth]) throws(AgentError) {
        var prev: [LinkOwnerAuth] = []
        for o in owners {
            let idStr = Base64URL.encode(o.ownerId, padded: false)
            if o.ownerKey == rootKey { throw .link(.linkData("owner key for ID \(idStr) matches root key")) }
            if prev.contains(where: { $0.ownerId == o.ownerId || $0.ownerKey == o.ownerKey }) {
                throw .link(.linkData("duplicate owner key or ID \(idStr)"))
            }
            let signed = o.signedBytes
            guard rootKey.isValidSignature(o.signature, for: signed) || prev.contains(where: { $0.ownerKey.isValidSignature(o.signature, for: signed) }) else {
                throw .link(.linkData("invalid authorization of owner ID \(idStr)"))
            }
            prev.append(o)
        }
    }

    private static func open(_ enc: [UInt8], key: [UInt8]) throws(AgentError) -> (signature: [UInt8], data: [UInt8]) {
        guard enc.count >= CryptoBox.nonceLength else { throw .agent(.message("link data too short")) }
        let plain: [UInt8]
        do {
            plain = try CryptoBox.sbDecrypt(sbKey: key, nonce: Array(enc.prefix(CryptoBox.nonceLength)), box: Array(enc.dropFirst(CryptoBox.nonceLength)))
        } catch {
            throw .agent(.crypto(.decryptCB))
        }
        var d = SMPDecoder(plain)
        guard let sig = try? d.shortString() else { throw .agent(.message("link data signature")) }
        return (sig, d.rest())
    }
}

/// Encodings shared by the link data types.
enum ShortLinkWire {
    /// simplexmq `smpEncodeList`: a 1-byte count (0...255), then the items.
    static func encodeList<T>(_ items: [T], into e: inout SMPEncoder, _ item: (inout SMPEncoder, T) throws(EncodingError) -> Void) throws(EncodingError) {
        guard items.count <= 255 else { throw .tooLarge("list of \(items.count) items") }
        e.byte(UInt8(items.count))
        for x in items { try item(&e, x) }
    }

    static func decodeList<T>(_ d: inout SMPDecoder, _ item: (inout SMPDecoder) throws(DecodingError) -> T) throws(DecodingError) -> [T] {
        let n = Int(try AgentWire.decoding { try d.byte() })
        var out: [T] = []
        for _ in 0..<n { out.append(try item(&d)) }
        return out
    }

    /// simplexmq `UserLinkData`: a shortString up to 254 bytes, otherwise 255 then a Large.
    static func encodeUserData(_ data: [UInt8], into e: inout SMPEncoder) throws(EncodingError) {
        if data.count <= 254 {
            try AgentWire.shortString(data, into: &e)
        } else {
            e.byte(255)
            try AgentWire.largeString(data, into: &e)
        }
    }

    static func decodeUserData(_ d: inout SMPDecoder) throws(DecodingError) -> [UInt8] {
        if d.peek() == 255 {
            _ = try AgentWire.decoding { try d.byte() }
            return try AgentWire.decoding { try d.largeString() }
        }
        return try AgentWire.decoding { try d.shortString() }
    }

    static func ed25519Key(_ d: inout SMPDecoder) throws(DecodingError) -> Ed25519PublicKey {
        let der = try AgentWire.decoding { try d.shortString() }
        do { return try Ed25519PublicKey(x509Encoded: der) } catch { throw .invalid("Ed25519 key: \(error)") }
    }
}

// MARK: binary forms of links (inside the fixed data)

extension ConnectionRequestURI {
    /// simplexmq `Encoding (ConnectionRequestUri m)`: "I" crData e2eParams, or "C" crData, where
    /// crData is `agentVRange NonEmpty(SMPQueueUri) Maybe(Large clientData)`.
    public func encodeBinary(into e: inout SMPEncoder) throws(EncodingError) {
        e.byte(mode == .invitation ? UInt8(ascii: "I") : UInt8(ascii: "C"))
        agentVersions.encode(into: &e)
        try AgentWire.encodeNonEmpty(queues, into: &e) { (e, q) throws(EncodingError) in try q.encode(into: &e) }
        if let clientData {
            e.byte(UInt8(ascii: "1"))
            try AgentWire.largeString(Array(clientData.utf8), into: &e)
        } else {
            e.byte(UInt8(ascii: "0"))
        }
        if mode == .invitation, let e2eParams { try e2eParams.encodeBinary(into: &e) }
    }

    /// The scheme is `simplex:` (the binary form has none), as in simplexmq.
    public init(decodingBinary d: inout SMPDecoder) throws(DecodingError) {
        let mode: ConnectionMode
        switch try AgentWire.decoding({ try d.byte() }) {
        case UInt8(ascii: "I"): mode = .invitation
        case UInt8(ascii: "C"): mode = .contact
        case let b: throw .invalid("bad connection mode \(b)")
        }
        let vr = try VersionRange(from: &d)
        // simplexmq patches a queue without a mode to a contact queue: this binary form came
        // with client version 4, and before it only "T" (messaging) was written.
        let queues = try AgentWire.decodeNonEmpty(&d) { (d) throws(DecodingError) in
            let q = try SMPQueueURI(from: &d)
            return q.queueMode == nil
                ? SMPQueueURI(server: q.server, senderId: q.senderId, clientVersions: q.clientVersions, dhPublicKey: q.dhPublicKey, queueMode: .contact)
                : q
        }
        let data = try AgentWire.decodeOptional(&d) { (d) throws(DecodingError) in
            String(decoding: try AgentWire.decoding { try d.largeString() }, as: UTF8.self)
        }
        let e2e = mode == .invitation ? try E2ERatchetParamsURI(decodingBinary: &d) : nil
        do {
            self = try ConnectionRequestURI(mode: mode, scheme: .simplex, agentVersions: vr, queues: queues, e2eParams: e2e, clientData: data)
        } catch {
            throw .invalid("connection link: \(error)")
        }
    }
}

extension E2ERatchetParamsURI {
    /// simplexmq `Encoding (E2ERatchetParamsUri s a)`: `vr key1 key2 Maybe(RKEMParams)`.
    public func encodeBinary(into e: inout SMPEncoder) throws(EncodingError) {
        versions.encode(into: &e)
        // E2ERatchetParams at version 3 writes the same tail: both keys, then Maybe(KEM params).
        let p = E2ERatchetParams(version: E2EVersion.pqRatchet, key1: key1, key2: key2, kem: kem)
        do { e.raw(Array(try p.encoded().dropFirst(2))) } catch { throw .tooLarge("e2e params: \(error)") }
    }

    public init(decodingBinary d: inout SMPDecoder) throws(DecodingError) {
        let vr = try VersionRange(from: &d)
        let k1 = try Self.x448(&d)
        let k2 = try Self.x448(&d)
        // A link's params can only propose a KEM (simplexmq `RcvE2ERatchetParamsUri`).
        let kem = try AgentWire.decodeOptional(&d) { (d) throws(DecodingError) -> RatchetKEMParams in
            switch try AgentWire.decoding({ try d.byte() }) {
            case UInt8(ascii: "P"):
                return .proposed(KEMPublicKey(try AgentWire.decoding { try d.largeString() }))
            case UInt8(ascii: "A"):
                throw .invalid("bad ratchet KEM state: accepted KEM params in a link")
            case let b:
                throw .invalid("bad ratchet KEM params \(b)")
            }
        }
        self.init(versions: vr, key1: k1, key2: k2, kem: kem)
    }

    private static func x448(_ d: inout SMPDecoder) throws(DecodingError) -> X448PublicKey {
        let der = try AgentWire.decoding { try d.shortString() }
        do { return try X448PublicKey(x509Encoded: der) } catch { throw .invalid("X448 key: \(error)") }
    }
}

extension ShortLink {
    /// A link to the invitation queue `linkId` on `server`.
    public init(invitation server: SMPServerAddress, linkId: [UInt8], linkKey: [UInt8], scheme: Scheme = .server) {
        self.init(scheme: Self.usableScheme(scheme, server), mode: .invitation, contactType: nil, server: server, linkId: linkId, linkKey: linkKey)
    }

    /// A link to a contact address (or channel, group, relay) on `server`.
    public init(contact server: SMPServerAddress, type: ContactType = .contact, linkKey: [UInt8], scheme: Scheme = .server) {
        self.init(scheme: Self.usableScheme(scheme, server), mode: .contact, contactType: type, server: server, linkId: nil, linkKey: linkKey)
    }

    /// An IPv6 literal cannot be the https authority of a short link (the parser refuses a
    /// host with ":"), so such links use `simplex:` with the hosts in `h`.
    private static func usableScheme(_ scheme: Scheme, _ server: SMPServerAddress) -> Scheme {
        scheme == .server && server.hosts[0].contains(":") ? .simplex : scheme
    }

    /// simplexmq `Encoding (ConnShortLink m)`: "I" server linkId linkKey, or "C" typeChar server
    /// linkKey; a preset server without its identity is written with an empty key hash.
    public func encodeBinary(into e: inout SMPEncoder) throws(EncodingError) {
        let server: SMPServerAddress
        do { server = try SMPServerAddress(keyHash: serverKeyHash ?? [], hosts: hosts, port: port) } catch {
            throw .tooLarge("short link server: \(error)")
        }
        if mode == .invitation {
            e.byte(UInt8(ascii: "I"))
            try server.encode(into: &e)
            try AgentWire.shortString(linkId ?? [], into: &e)
        } else {
            e.byte(UInt8(ascii: "C"))
            e.byte(Array((contactType ?? .contact).rawValue.uppercased().utf8)[0])
            try server.encode(into: &e)
        }
        try AgentWire.shortString(linkKey, into: &e)
    }

    /// The binary form has no scheme: the link gets the https one, as in simplexmq.
    public init(decodingBinary d: inout SMPDecoder) throws(DecodingError) {
        let tag = try AgentWire.decoding { try d.byte() }
        switch tag {
        case UInt8(ascii: "I"):
            let server = try SMPServerAddress(from: &d)
            let lid = try AgentWire.decoding { try d.shortString() }
            let key = try AgentWire.decoding { try d.shortString() }
            self.init(invitation: server, linkId: lid, linkKey: key)
        case UInt8(ascii: "C"):
            let c = try AgentWire.decoding { try d.byte() }
            guard let t = ContactType.allCases.first(where: { $0.rawValue.uppercased().utf8.first == c }) else {
                throw .invalid("unknown contact address type \(c)")
            }
            let server = try SMPServerAddress(from: &d)
            let key = try AgentWire.decoding { try d.shortString() }
            self.init(contact: server, type: t, linkKey: key)
        case let b:
            throw .invalid("bad short link mode \(b)")
        }
    }
}
