import Foundation
import GRDB
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport

/// A connection created together with its short link.
public struct CreatedConnectionLink: Sendable {
    public let connId: String
    /// The full link (also inside the short link's data).
    public let link: ConnectionRequestURI
    /// Nil when the connection was created without a short link.
    public let shortLink: ShortLink?
}

/// What a resolved short link says: the full link and the owner's data.
public struct ShortLinkContents: Sendable, Equatable {
    public let fixedData: FixedLinkData
    public let linkData: ConnLinkData
    /// The full link to join (`joinConnection(link:...)`).
    public var link: ConnectionRequestURI { fixedData.connReq }
    /// The owner's application data (a profile in simplex-chat).
    public var userData: [UInt8] { linkData.userData }
}

/// Credentials of a short link we own (table `short_links`).
struct ShortLinkRecord: AgentRecord {
    static let databaseTableName = "short_links"
    var connId: String
    var server: String
    var linkId: Data
    var linkKey: Data
    /// Raw Ed25519 seed of the root key that signs the link data.
    var linkPrivSigKey: Data
    /// The encrypted fixed data, sent again unchanged with every LSET.
    var linkEncFixedData: Data
    var shortLink: String
}

/// Link data prepared before the queue exists.
/// What the caller of `createContactLink` puts in the link data beyond the user data; nil
/// fields: a new root key, no entity ID, `UserContactData(direct: true)` around the user data.
struct LinkContent {
    var contactData: UserContactData?
    var rootKey: Ed25519PrivateKey?
    var entityId: [UInt8]?
}

struct PreparedShortLink {
    let linkKey: [UInt8]
    let rootKey: Ed25519PrivateKey
    let request: QueueRequestData
}

/// Short links (simplexmq Agent.hs `newRcvConnSrv` with link data, `getConnShortLink'`,
/// `setConnShortLink'`, `deleteConnShortLink'`).
extension SMPAgent {
    /// Creates an invitation or a contact address whose link data (the full link and
    /// `userLinkData`) is stored encrypted at the relay, and returns the short link to share.
    /// One NEW creates the queue and its link data. An invitation's short link can be resolved
    /// by one agent only (LKEY secures the queue); an address's by anyone (LGET).
    public func createConnection(mode: ConnectionMode = .invitation, userLinkData: [UInt8], pqSupport: Bool? = nil, userId: Int64 = 1,
                                 clientData: String? = nil)
        async throws(AgentError) -> CreatedConnectionLink
    {
        try await createConnection(mode: mode, pqSupport: pqSupport, userId: userId, shortLinkUserData: userLinkData, clientData: clientData)
    }

    /// A contact address whose link data the caller shapes (simplexmq `prepareConnectionLink` +
    /// `createConnectionForLink`, one call here): the root key (so the caller can authorize
    /// owners, `LinkOwnerAuth(signedBy:)`), the `linkEntityId` in the signed fixed data, and the
    /// whole `UserContactData` (direct, owners, relays, user data). simplex-chat uses this for
    /// channels, whose entity ID is the SHA-256 of the root public key.
    public func createContactLink(contactData: UserContactData, rootKey: Ed25519PrivateKey? = nil, linkEntityId: [UInt8]? = nil,
                                  pqSupport: Bool? = nil, userId: Int64 = 1, clientData: String? = nil)
        async throws(AgentError) -> CreatedConnectionLink
    {
        try await createConnection(mode: .contact, pqSupport: pqSupport, userId: userId, shortLinkUserData: contactData.userData,
                                   clientData: clientData, linkContent: LinkContent(contactData: contactData, rootKey: rootKey, entityId: linkEntityId))
    }

    /// Fetches and verifies a short link's data: the full link and the owner's user data.
    /// An invitation's data is fetched with LKEY, which also secures its queue with a key we keep
    /// for `joinConnection`; any other agent resolving it afterwards gets `CONN NOT_AVAILABLE`.
    public func getConnShortLink(_ link: ShortLink) async throws(AgentError) -> (link: ConnectionRequestURI, userData: [UInt8]) {
        let c = try await getConnShortLinkContents(link)
        return (c.link, c.userData)
    }

    /// `getConnShortLink` with everything the link data holds (contact data: `direct`, owners, relays).
    public func getConnShortLinkContents(_ link: ShortLink) async throws(AgentError) -> ShortLinkContents {
        let server = try shortLinkServer(link)
        let srv = server.description
        let key: [UInt8]
        let senderId: [UInt8]
        let data: QueueLinkData
        switch link.mode {
        case .invitation:
            guard let linkId = link.linkId else { throw .link(.missingParameter("link ID")) }
            key = ShortLinkCrypto.invitationKey(linkKey: link.linkKey)
            let sndKey = try invShortLinkKey(server: srv, linkId: linkId, linkKey: link.linkKey)
            do {
                (senderId, data) = try await sendOrProxy(srv, viaProxy: { c, relay throws(SMPClientError) in
                    try await c.proxySecureGetLink(relay, linkId: linkId, key: sndKey)
                }, direct: { c throws(SMPClientError) in try await c.secureGetLink(linkId: linkId, key: sndKey) }).value
            } catch {
                if case .smp(_, .auth) = error { throw .connection(.notAvailable, "the invitation short link is unknown or was already used") }
                throw error
            }
            try write { db in
                try db.setInvShortLinkSenderId(server: srv, linkId: linkId, senderId: senderId)
            }
        case .contact:
            let (linkId, k) = ShortLinkCrypto.contactKeys(linkKey: link.linkKey)
            key = k
            do {
                (senderId, data) = try await sendOrProxy(srv, viaProxy: { c, relay throws(SMPClientError) in
                    try await c.proxyGetLink(relay, linkId: linkId)
                }, direct: { c throws(SMPClientError) in try await c.getLink(linkId: linkId) }).value
            } catch {
                if case .smp(_, .auth) = error { throw .connection(.notFound, "no such contact address short link (deleted or never existed)") }
                throw error
            }
        }
        let (fd, ud) = try ShortLinkCrypto.decrypt(linkKey: link.linkKey, key: key, data: data)
        // The full link must name the queue the link was found at (simplexmq: "different address").
        guard let q = fd.connReq.queues.first, q.server.hosts.contains(link.hosts[0]), q.senderId == senderId else {
            throw .link(.linkData("different address"))
        }
        guard fd.connReq.mode == link.mode else { throw .link(.linkData("link data of another connection mode")) }
        return ShortLinkContents(fixedData: fd, linkData: ud)
    }

    /// Replaces the user data of a connection's short link (LSET with the same fixed data). A
    /// contact address created without a short link gets one now. Returns the short link.
    public func setConnShortLink(connId: String, userData: [UInt8]) async throws(AgentError) -> ShortLink {
        try await setConnShortLink(connId: connId, userData: userData, contactData: nil)
    }

    /// The same with the whole `UserContactData` of a contact address (owners, relays, direct),
    /// signed with the link's root key (simplexmq `setConnShortLink` with `UserContactLinkData`).
    public func setConnShortLink(connId: String, contactData: UserContactData) async throws(AgentError) -> ShortLink {
        try await setConnShortLink(connId: connId, userData: contactData.userData, contactData: contactData)
    }

    private func setConnShortLink(connId: String, userData: [UInt8], contactData: UserContactData?) async throws(AgentError) -> ShortLink {
        let (conn, rq, rec) = try store.read { db -> (ConnectionRecord, RcvQueueRecord, ShortLinkRecord?) in
            guard let conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
            guard let rq = try db.rcvQueues(connId).first else {
                throw AgentError.command(.prohibited, "setConnShortLink: connection has no receive queue")
            }
            return (conn, rq, try db.shortLinkRecord(connId))
        }
        let mode: ConnectionMode = conn.connMode == "contact" ? .contact : .invitation
        if contactData != nil, mode != .contact { throw .command(.prohibited, "setConnShortLink: contact data for an invitation") }
        let rkey = try authKey(rq.rcvPrivateKey)
        if let rec {
            let rootKey: Ed25519PrivateKey
            do { rootKey = try Ed25519PrivateKey(rawRepresentation: [UInt8](rec.linkPrivSigKey)) } catch { throw .store("bad link key: \(error)") }
            let linkKey = [UInt8](rec.linkKey)
            let sbKey = mode == .contact ? ShortLinkCrypto.contactKeys(linkKey: linkKey).key : ShortLinkCrypto.invitationKey(linkKey: linkKey)
            let signed = try ShortLinkCrypto.signUserData(connLinkData(mode, userData, contactData), key: rootKey)
            let enc = try ShortLinkCrypto.encrypt(signed, key: sbKey, paddedLength: ShortLinkCrypto.userDataPaddedLength)
            let data = QueueLinkData(fixedData: [UInt8](rec.linkEncFixedData), userData: enc)
            try await smp(rq.server) { c throws(SMPClientError) in
                try await c.setLink(recipientId: [UInt8](rq.rcvId), key: rkey, linkId: [UInt8](rec.linkId), data: data)
            }
            do { return try ShortLink(parsing: rec.shortLink) } catch { throw .store("bad stored short link: \(error)") }
        }
        // An address made without a short link: its link data is made from its full link.
        guard mode == .contact, let own = conn.ownLink else {
            throw .command(.prohibited, "setConnShortLink: an invitation without a short link cannot get one")
        }
        let connReq: ConnectionRequestURI
        do { connReq = try ConnectionRequestURI(parsing: own) } catch { throw .link(error) }
        guard let q = connReq.queues.first else { throw .link(.noQueues) }
        let p = try prepareShortLink(connReq: connReq, server: q.server, senderId: q.senderId, userData: userData,
                                     content: LinkContent(contactData: contactData))
        guard case .contact(let linkId, _, let data) = p.request else { throw .internalError("contact link data expected") }
        try await smp(rq.server) { c throws(SMPClientError) in
            try await c.setLink(recipientId: [UInt8](rq.rcvId), key: rkey, linkId: linkId, data: data)
        }
        let sl = ShortLink(contact: q.server, linkKey: p.linkKey)
        let rec2 = ShortLinkRecord(connId: connId, server: rq.server, linkId: Data(linkId), linkKey: Data(p.linkKey),
                                   linkPrivSigKey: Data(p.rootKey.rawRepresentation), linkEncFixedData: Data(data.fixedData), shortLink: sl.uriString)
        try write { db in try rec2.insert(db) }
        return sl
    }

    /// Deletes a connection's short link data at the relay (LDEL) and locally; the connection
    /// itself stays. Deleting the connection deletes its queue and so the link data too.
    public func deleteConnShortLink(connId: String) async throws(AgentError) {
        let rq = try store.read { db -> RcvQueueRecord in
            guard try db.shortLinkRecord(connId) != nil else { throw AgentError.connection(.notFound, "short link of \(connId)") }
            guard let rq = try db.rcvQueues(connId).first else {
                throw AgentError.internalError("no receive queue")
            }
            return rq
        }
        let rkey = try authKey(rq.rcvPrivateKey)
        try await smp(rq.server) { c throws(SMPClientError) in try await c.deleteLink(recipientId: [UInt8](rq.rcvId), key: rkey) }
        _ = try write { db in try ShortLinkRecord.deleteOne(db, key: connId) }
    }

    /// The short link of a connection we own, if it has one.
    public func connShortLink(connId: String) throws(AgentError) -> ShortLink? {
        let s = try store.read { db in try db.shortLinkRecord(connId)?.shortLink }
        guard let s else { return nil }
        do { return try ShortLink(parsing: s) } catch { throw .store("bad stored short link: \(error)") }
    }

    // MARK: helpers

    /// Signs and encrypts the link data for a queue about to be created (or an existing contact
    /// queue): a new root key, the link key (SHA3-256 of the fixed data), and the keys derived from it.
    func prepareShortLink(connReq: ConnectionRequestURI, server: SMPServerAddress, senderId: [UInt8], userData: [UInt8],
                          content: LinkContent = LinkContent())
        throws(AgentError) -> PreparedShortLink
    {
        let rootKey = content.rootKey ?? Ed25519PrivateKey()
        let fd = FixedLinkData(agentVersions: config.agentVersions, rootKey: rootKey.publicKey, connReq: connReq, linkEntityId: content.entityId)
        let (linkKey, signedFixed) = try ShortLinkCrypto.signFixedData(fd, rootKey: rootKey)
        let signedUser = try ShortLinkCrypto.signUserData(connLinkData(connReq.mode, userData, content.contactData), key: rootKey)
        switch connReq.mode {
        case .contact:
            let (linkId, k) = ShortLinkCrypto.contactKeys(linkKey: linkKey)
            let data = QueueLinkData(fixedData: try ShortLinkCrypto.encrypt(signedFixed, key: k, paddedLength: ShortLinkCrypto.fixedDataPaddedLength),
                                     userData: try ShortLinkCrypto.encrypt(signedUser, key: k, paddedLength: ShortLinkCrypto.userDataPaddedLength))
            return PreparedShortLink(linkKey: linkKey, rootKey: rootKey, request: .contact(linkId: linkId, senderId: senderId, data: data))
        case .invitation:
            let k = ShortLinkCrypto.invitationKey(linkKey: linkKey)
            let data = QueueLinkData(fixedData: try ShortLinkCrypto.encrypt(signedFixed, key: k, paddedLength: ShortLinkCrypto.fixedDataPaddedLength),
                                     userData: try ShortLinkCrypto.encrypt(signedUser, key: k, paddedLength: ShortLinkCrypto.userDataPaddedLength))
            return PreparedShortLink(linkKey: linkKey, rootKey: rootKey, request: .messaging(senderId: senderId, data: data))
        }
    }

    private func connLinkData(_ mode: ConnectionMode, _ userData: [UInt8], _ contactData: UserContactData? = nil) -> ConnLinkData {
        switch mode {
        case .invitation: .invitation(agentVersions: config.agentVersions, userData: userData)
        case .contact: .contact(agentVersions: config.agentVersions, contactData ?? UserContactData(direct: true, userData: userData))
        }
    }

    /// The relay of a short link: its own identity when the link has `c`, else a configured
    /// server with the link's host (preset servers omit `c`).
    private func shortLinkServer(_ link: ShortLink) throws(AgentError) -> SMPServerAddress {
        if let s = link.server { return s }
        if let s = config.servers.first(where: { $0.hosts.contains(link.hosts[0]) && (link.port == nil || $0.port == link.port) }) { return s }
        throw .link(.missingParameter("c"))
    }

    /// The sender key for LKEY on an invitation short link: the one used before for the same
    /// link (so resolving again works), else a new one, stored first.
    private func invShortLinkKey(server: String, linkId: [UInt8], linkKey: [UInt8]) throws(AgentError) -> PrivateAuthKey {
        let existing = try store.read { db in try db.invShortLinkKeys(server: server, linkId: linkId) }
        if let (k, pk) = existing, [UInt8](k) == linkKey { return try authKey(pk) }
        let key: PrivateAuthKey
        do { key = try PrivateAuthKey.generate(.ed25519) } catch { throw .internalError("\(error)") }
        try write { db in
            try db.saveInvShortLinkKey(server: server, linkId: linkId, linkKey: linkKey, sndPrivateKey: key.pkcs8Encoded)
        }
        return key
    }

    /// The key LKEY secured this invitation queue with, if we resolved it from a short link.
    func invShortLinkSenderKey(senderId: [UInt8]) throws(AgentError) -> PrivateAuthKey? {
        let pk = try store.read { db in
            try db.invShortLinkSenderKey(senderId: senderId)
        }
        return try pk.map { (pk) throws(AgentError) in try authKey(pk) }
    }
}
