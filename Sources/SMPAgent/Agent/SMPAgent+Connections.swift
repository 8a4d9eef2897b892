import DoubleRatchet
import Foundation
import GRDB
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport

/// The connection procedure of agent-protocol.md: create, join, allow, contact requests, delete.
extension SMPAgent {
    /// Creates a receiving queue and returns its link: a 1-time invitation (with the ratchet's
    /// X3DH keys) or a contact address that any number of people can use.
    /// `clientData` is the link's `data` parameter (simplexmq `crClientData`; a group link's ID).
    public func createConnection(mode: ConnectionMode = .invitation, pqSupport: Bool? = nil, userId: Int64 = 1, clientData: String? = nil)
        async throws(AgentError) -> (connId: String, link: ConnectionRequestURI)
    {
        let r = try await createConnection(mode: mode, pqSupport: pqSupport, userId: userId, shortLinkUserData: nil, clientData: clientData)
        return (r.connId, r.link)
    }

    /// Creates the connection; with `shortLinkUserData` the queue is created together with its
    /// short link data (see SMPAgent+ShortLinks).
    /// `kemInLink` overrides `config.pqInInvitation` (the invitation a contact request carries).
    func createConnection(mode: ConnectionMode, pqSupport: Bool?, userId: Int64, shortLinkUserData: [UInt8]?, clientData: String? = nil,
                          kemInLink: Bool? = nil, linkContent: LinkContent = LinkContent())
        async throws(AgentError) -> CreatedConnectionLink
    {
        let pq = pqSupport ?? config.pqSupport
        let server = try pickServer()
        var x3dh: E2EPrivateParams?
        var e2eURI: E2ERatchetParamsURI?
        // simplexmq `initialPQEncryption`: with PQ on, an invitation with a short link carries the
        // KEM key in its link data (the data is not limited by a QR code's size); without a short
        // link only when asked for (`pqInInvitation`, the reference's IKUsePQ).
        let kemInFullLink = kemInLink ?? config.pqInInvitation
        if mode == .invitation {
            do {
                let p = try PQRatchet.generateReceiverParams(pqSupport: pq && (kemInFullLink || shortLinkUserData != nil))
                x3dh = p
                e2eURI = E2ERatchetParamsURI(p.publicParams)
            } catch {
                throw .internalError("ratchet keys: \(error)")
            }
        }
        func fullLink(senderId: [UInt8], e2eKey: X25519PublicKey, senderCanSecure: Bool,
                      e2eParams: E2ERatchetParamsURI? = nil) throws(AgentError) -> ConnectionRequestURI {
            let queueURI = SMPQueueURI(server: server, senderId: senderId, clientVersions: config.smpClientVersions,
                                       dhPublicKey: e2eKey, senderCanSecure: senderCanSecure)
            do {
                return try ConnectionRequestURI(mode: mode, scheme: .simplex, agentVersions: config.agentVersions,
                                                queues: [queueURI], e2eParams: e2eParams ?? e2eURI, clientData: clientData)
            } catch {
                throw .link(error)
            }
        }
        let new: NewRcvQueue
        var link: ConnectionRequestURI
        var prepared: PreparedShortLink?
        if let shortLinkUserData {
            // The link data names the queue before it exists: the sender ID is derived from the
            // corrId of the NEW that creates it, and the queue's e2e key is chosen first.
            let corrId = SecureRandom.bytes(RawTransmission.corrIdLength)
            let senderId = QueueRequestData.senderId(corrId: corrId)
            let e2e = X25519PrivateKey()
            // Invitation short links need a messaging queue (LKEY secures it), whatever the config.
            link = try fullLink(senderId: senderId, e2eKey: e2e.publicKey, senderCanSecure: mode == .invitation)
            let p = try prepareShortLink(connReq: link, server: server, senderId: senderId, userData: shortLinkUserData, content: linkContent)
            prepared = p
            new = try await newRcvQueue(server: server, senderCanSecure: mode == .invitation, e2e: e2e, queueData: p.request, corrId: corrId)
            // simplexmq `connReqWithShortLink` (IKPQOn): the full link returned beside the short
            // link leaves the KEM key out, to keep its QR code small; a joiner by the full link
            // then proposes PQ in its confirmation.
            if let params = link.e2eParams, params.kem != nil, !kemInFullLink {
                link = try fullLink(senderId: senderId, e2eKey: e2e.publicKey, senderCanSecure: true,
                                    e2eParams: E2ERatchetParamsURI(versions: params.versions, key1: params.key1, key2: params.key2, kem: nil))
            }
        } else {
            new = try await newRcvQueue(server: server, senderCanSecure: mode == .invitation && config.senderCanSecure && canSenderSecure)
            link = try fullLink(senderId: new.created.senderId, e2eKey: new.e2e.publicKey, senderCanSecure: new.created.senderCanSecure)
        }
        var shortLink: ShortLink?
        var linkRecord: ShortLinkRecord?
        if let prepared {
            guard let linkId = new.created.linkId else { throw .internalError("relay created no short link") }
            let sl = mode == .contact
                ? ShortLink(contact: server, linkKey: prepared.linkKey)
                : ShortLink(invitation: server, linkId: linkId, linkKey: prepared.linkKey)
            shortLink = sl
            linkRecord = ShortLinkRecord(connId: "", server: server.description, linkId: Data(linkId), linkKey: Data(prepared.linkKey),
                                         linkPrivSigKey: Data(prepared.rootKey.rawRepresentation),
                                         linkEncFixedData: Data(prepared.request.data.fixedData), shortLink: sl.uriString)
        }
        let connId = newId()
        let conn = ConnectionRecord(connId: connId, mode: mode, initiator: true, status: mode == .contact ? .contact : .new,
                                    pqSupport: pq, userId: userId, ownLink: link.uriString, agentVersion: config.agentVersions.max)
        let rq = new.record(connId: connId)
        let x3dhBytes: Data?
        do { x3dhBytes = try x3dh.map { Data(try $0.encoded()) } } catch { throw .internalError("\(error)") }
        try write { db in
            try conn.insert(db)
            try rq.insert(db)
            if mode == .invitation { try RatchetRecord(connId: connId, x3dhPrivate: x3dhBytes, ratchetState: nil).insert(db) }
            if var linkRecord {
                linkRecord.connId = connId
                try linkRecord.insert(db)
            }
        }
        return CreatedConnectionLink(connId: connId, link: link, shortLink: shortLink)
    }

    /// Joins from a link. An invitation: secure the peer's queue when it allows it (SKEY), create
    /// our reply queue, queue our confirmation. A contact address: create a new connection and
    /// send its invitation to the address; the owner answers with a confirmation (CONF).
    public func joinConnection(link: ConnectionRequestURI, connInfo: [UInt8], pqSupport: Bool? = nil, userId: Int64 = 1)
        async throws(AgentError) -> String
    {
        let pq = pqSupport ?? config.pqSupport
        switch link.mode {
        case .invitation:
            return try await joinInvitation(link: link, connInfo: connInfo, pq: pq, userId: userId)
        case .contact:
            return try await joinContact(link: link, connInfo: connInfo, pq: pq, userId: userId)
        }
    }

    /// Parses a link string and joins it; a bad link is `.link(...)`.
    public func joinConnection(link: String, connInfo: [UInt8], pqSupport: Bool? = nil, userId: Int64 = 1) async throws(AgentError) -> String {
        let parsed: ConnectionRequestURI
        do { parsed = try ConnectionRequestURI(parsing: link) } catch { throw .link(error) }
        return try await joinConnection(link: parsed, connInfo: connInfo, pqSupport: pqSupport, userId: userId)
    }

    func joinInvitation(link: ConnectionRequestURI, connInfo: [UInt8], pq: Bool, userId: Int64) async throws(AgentError) -> String {
        guard let e2e = link.e2eParams else { throw .link(.missingE2EParameters) }
        // simplexmq `compatibleInvitationUri`: every range must meet ours (`A_VERSION`); the
        // highest common agent version is the connection's.
        guard let agentVersion = link.agentVersions.highestCommon(with: config.agentVersions) else { throw .agent(.version) }
        guard let e2eRange = e2e.versions.intersection(VersionRange(E2EVersion.supported)) else { throw .agent(.version) }
        guard let q = link.queues.first, let clientRange = q.clientVersions.intersection(config.smpClientVersions) else {
            throw .agent(.version)
        }
        let peer = e2e.params(version: e2eRange.max)
        // simplexmq `versionPQSupport_`: PQ needs agent version 5 and e2e version 3.
        let pq = pq && Self.versionAllowsPQ(agentVersion, e2eVersion: peer.version)
        let own: E2EPrivateParams
        var ratchet: PQRatchet
        do {
            own = try PQRatchet.generateSenderParams(replyingTo: peer, pqSupport: pq)
            ratchet = try PQRatchet.initSend(own: own, peer: peer)
        } catch {
            throw .internalError("keys: \(error)")
        }
        let server = q.server.description
        let sndKey: PrivateAuthKey
        let sndE2E = X25519PrivateKey()
        let secret: [UInt8]
        // A queue found via its short link was already secured with LKEY: use that key (SKEY
        // with the same key again is accepted by the relay).
        let linkSndKey = try invShortLinkSenderKey(senderId: q.senderId)
        let newSndKey = linkSndKey == nil ? try await newAuthKey(for: q.server.description, config.senderAuthAlgorithm, sender: true) : nil
        do {
            sndKey = try linkSndKey ?? newSndKey ?? PrivateAuthKey.generate(.ed25519)
            secret = try sndE2E.sharedSecret(with: q.dhPublicKey)
        } catch {
            throw .internalError("keys: \(error)")
        }
        // Fast procedure: secure the queue ourselves first, so nobody else can use the link.
        let senderSecures = q.senderCanSecure && clientRange.max >= SMPClientVersion.senderAuthKey
        if senderSecures {
            do {
                try await secureSndQueue(server: server, senderId: q.senderId, key: sndKey)
            } catch {
                if case .smp(_, .auth) = error { throw .connection(.notAvailable, "the invitation was already used") }
                throw error
            }
        }
        let replyServer = try pickServer()
        // simplexmq `createReplyQueue`: the reply queue is described at the client version agreed
        // for the peer's queue; below 3 it cannot say that its sender may secure it.
        let replyVersion = clientRange.max
        let reply = try await newRcvQueue(server: replyServer, senderCanSecure: config.senderCanSecure && replyVersion >= SMPClientVersion.senderAuthKey,
                                          clientVersion: replyVersion)
        let replyInfo = SMPQueueInfo(clientVersion: replyVersion, server: replyServer, senderId: reply.created.senderId,
                                     dhPublicKey: reply.e2e.publicKey, senderCanSecure: reply.created.senderCanSecure)
        let connId = newId()
        let agentMsg = AgentMessage.connInfoReply(queues: [replyInfo], info: connInfo)
        let envelope: [UInt8]
        let plain: [UInt8]
        do {
            plain = try agentMsg.smpEncoded()
            let enc = try ratchet.encrypt(plain, paddedLength: AgentMessageSize.e2eEncConnInfoLength(version: agentVersion, pq: pq))
            envelope = try AgentMsgEnvelope.confirmation(agentVersion: agentVersion, e2eParams: own.publicParams, encConnInfo: enc).smpEncoded()
        } catch {
            throw .internalError("confirmation: \(error)")
        }
        let state = try serialize(ratchet)
        let conn = ConnectionRecord(connId: connId, mode: .invitation, initiator: false, status: .joined, pqSupport: pq, userId: userId, ownLink: nil,
                                    agentVersion: agentVersion)
        let rq = reply.record(connId: connId)
        let sq = SndQueueRecord(sndQueueId: nil, connId: connId, server: server, sndId: Data(q.senderId), sndPrivateKey: Data(sndKey.pkcs8Encoded),
                                e2ePrivateKey: Data(sndE2E.rawRepresentation), e2eDhSecret: Data(secret), sndSecure: senderSecures,
                                status: senderSecures ? .secured : .new, smpClientVersion: Int(clientRange.max))
        try write { db in
            try conn.insert(db)
            try rq.insert(db)
            try sq.insert(db)
            try RatchetRecord(connId: connId, x3dhPrivate: nil, ratchetState: state).insert(db)
            self.ratchetPending[connId] = ratchet
            _ = try self.storeSndMessage(db, connId: connId, type: .confirmation, plain: plain, envelope: envelope)
            if linkSndKey != nil { try db.deleteInvitationShortLink(sndId: q.senderId) }
        }
        wake(connId)
        return connId
    }

    func joinContact(link: ConnectionRequestURI, connInfo: [UInt8], pq: Bool, userId: Int64) async throws(AgentError) -> String {
        // simplexmq `compatibleContactUri`.
        guard let agentVersion = link.agentVersions.highestCommon(with: config.agentVersions) else { throw .agent(.version) }
        guard let q = link.queues.first, let clientRange = q.clientVersions.intersection(config.smpClientVersions) else {
            throw .agent(.version)
        }
        // simplexmq `joinContactInitialKeys`: from agent version 5 the invitation carries the KEM
        // key, so PQ starts with the owner's confirmation; below it there is no PQ.
        let pqAllowed = agentVersion >= AgentVersion.pqDoubleRatchet
        let created = try await createConnection(mode: .invitation, pqSupport: pq && pqAllowed, userId: userId, shortLinkUserData: nil,
                                                 kemInLink: pq && pqAllowed)
        let (connId, invitation) = (created.connId, created.link)
        do {
            let body = try AgentMsgEnvelope.invitation(agentVersion: agentVersion, connReq: invitation, connInfo: connInfo).smpEncoded()
            let bytes = try QueueCrypto.sealOnce(ClientMessage(privHeader: .empty, body: body), recipientDhKey: q.dhPublicKey, version: clientRange.max)
            try await sendOrProxySMPMessage(server: q.server.description, senderId: q.senderId, key: nil, notification: true, body: bytes)
        } catch {
            try? write { db in _ = try ConnectionRecord.deleteOne(db, key: connId) }
            if let e = error as? AgentError { throw e }
            throw .internalError("contact request: \(error)")
        }
        return connId
    }

    /// The initiator accepts the joiner's confirmation: secure our queue with the joiner's key
    /// (standard procedure), connect to its reply queue, queue our own confirmation.
    public func allowConnection(connId: String, confirmationId: String, connInfo: [UInt8]) async throws(AgentError) {
        let (conn, conf, rq) = try store.read { db in
            guard let conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
            guard let conf = try db.confirmation(confirmationId), conf.connId == connId else {
                throw AgentError.connection(.notFound, "confirmation \(confirmationId)")
            }
            guard conn.status == .confirmed, !conf.accepted else { throw AgentError.command(.prohibited, "connection is \(conn.status)") }
            guard let rq = try db.rcvQueues(connId).first else {
                throw AgentError.internalError("no receive queue")
            }
            return (conn, conf, rq)
        }
        let replyQueues: [SMPQueueInfo]
        do { replyQueues = try SMPQueueInfo.decodeList([UInt8](conf.replyQueues)) } catch { throw .agent(.message("reply queues: \(error)")) }
        guard let q = replyQueues.first, config.smpClientVersions.contains(q.clientVersion) else { throw .agent(.version) }
        if let k = conf.senderKey {
            let senderKey: AnyPublicKey
            do { senderKey = try AnyPublicKey(x509Encoded: [UInt8](k), allowing: AnyPublicKey.authAlgorithms) } catch {
                throw .agent(.message("sender key: \(error)"))
            }
            let rkey = try authKey(rq.rcvPrivateKey)
            try await smp(rq.server) { c throws(SMPClientError) in try await c.secure(recipientId: [UInt8](rq.rcvId), key: rkey, senderKey: senderKey) }
        }
        let sndKey: PrivateAuthKey
        let sndE2E = X25519PrivateKey()
        let secret: [UInt8]
        let newSndKey = try await newAuthKey(for: q.server.description, config.senderAuthAlgorithm, sender: true)
        do {
            sndKey = newSndKey
            secret = try sndE2E.sharedSecret(with: q.dhPublicKey)
        } catch {
            throw .internalError("keys: \(error)")
        }
        let server = q.server.description
        let senderSecures = q.senderCanSecure && q.clientVersion >= SMPClientVersion.senderAuthKey
        if senderSecures {
            try await secureSndQueue(server: server, senderId: q.senderId, key: sndKey)
        }
        var ratchet = try loadRatchet(connId)
        let plain: [UInt8]
        let envelope: [UInt8]
        do {
            plain = try AgentMessage.connInfo(connInfo).smpEncoded()
            let version = UInt16(conn.agentVersion)
            let enc = try ratchet.encrypt(plain, paddedLength: AgentMessageSize.e2eEncConnInfoLength(version: version, pq: conn.pqSupport))
            envelope = try AgentMsgEnvelope.confirmation(agentVersion: version, e2eParams: nil, encConnInfo: enc).smpEncoded()
        } catch {
            throw .internalError("confirmation: \(error)")
        }
        let sq = SndQueueRecord(sndQueueId: nil, connId: connId, server: server, sndId: Data(q.senderId), sndPrivateKey: Data(sndKey.pkcs8Encoded),
                                e2ePrivateKey: Data(sndE2E.rawRepresentation), e2eDhSecret: Data(secret), sndSecure: senderSecures,
                                status: senderSecures ? .secured : .new, smpClientVersion: Int(q.clientVersion))
        try write { db in
            try db.markConfirmationAccepted(confirmationId)
            try db.setRcvQueueStatus(rq.rcvQueueId, "secured")
            try db.setConnectionStatus(connId, "allowed")
            try sq.insert(db)
            try self.saveRatchet(in: db, connId, ratchet)
            _ = try self.storeSndMessage(db, connId: connId, type: .confirmation, plain: plain, envelope: envelope)
        }
        wake(connId)
    }

    /// Accepts a request from our contact address: joins the requester's invitation.
    public func acceptContact(invitationId: String, connInfo: [UInt8], pqSupport: Bool? = nil) async throws(AgentError) -> String {
        let (inv, userId) = try store.read { db in
            guard let inv = try db.invitation(invitationId), !inv.accepted else {
                throw AgentError.connection(.notFound, "invitation \(invitationId)")
            }
            let userId = try db.connectionUserId(inv.contactConnId) ?? 1
            return (inv, userId)
        }
        let link: ConnectionRequestURI
        do { link = try ConnectionRequestURI(parsing: inv.connRequest) } catch { throw .link(error) }
        let connId = try await joinInvitation(link: link, connInfo: connInfo, pq: pqSupport ?? config.pqSupport, userId: userId)
        try write { db in
            try db.markInvitationAccepted(invitationId)
        }
        return connId
    }

    /// Rejects a request from our contact address; the requester is told nothing.
    public func rejectContact(invitationId: String) throws(AgentError) {
        let deleted = try write { db in try InvitationRecord.deleteOne(db, key: invitationId) }
        if !deleted { throw .connection(.notFound, "invitation \(invitationId)") }
    }

    /// Deletes the connection: its queues at the relays (best effort: an unreachable relay
    /// expires them) and every local record.
    /// With `waitForDelivery`, first waits up to that many seconds for queued messages (such as a
    /// goodbye to the peer) to reach the relay.
    /// Without `deleteQueues` the queues stay at the relays (they expire there); only local state goes.
    public func deleteConnection(connId: String, waitForDelivery: Double = 0, deleteQueues: Bool = true) async throws(AgentError) {
        let deadline = Date().addingTimeInterval(waitForDelivery)
        while Date() < deadline, !stopped {
            let pending = (try? store.read { db in
                try db.pendingMessageCount(connId)
            }) ?? 0
            if pending == 0 { break }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        let rqs = try store.read { db in
            guard try ConnectionRecord.exists(db, key: connId) else { throw AgentError.connection(.notFound, connId) }
            return try db.rcvQueues(connId)
        }
        if let w = workers.removeValue(forKey: connId) { w.task.cancel(); w.wakeup.finish() }
        forgetUnacked(connId)
        for rq in rqs {
            guard let key = try? authKey(rq.rcvPrivateKey), let c = try? client(rq.server) else { continue }
            c.forget(recipientId: [UInt8](rq.rcvId))
            if deleteQueues { try? await c.delete(recipientId: [UInt8](rq.rcvId), key: key) }
        }
        _ = try write { db in try ConnectionRecord.deleteOne(db, key: connId) }
        emit(connId, .del)
    }

    // MARK: helpers

    struct NewRcvQueue {
        let server: SMPServerAddress
        let created: CreatedQueue
        let rcvKey: PrivateAuthKey
        let e2e: X25519PrivateKey
        let clientVersion: UInt16

        func record(connId: String) -> RcvQueueRecord {
            RcvQueueRecord(rcvQueueId: nil, connId: connId, server: server.description, rcvId: Data(created.recipientId),
                           sndId: Data(created.senderId), rcvPrivateKey: Data(rcvKey.pkcs8Encoded), rcvDhSecret: Data(created.rcvDhSecret),
                           e2ePrivateKey: Data(e2e.rawRepresentation), e2eDhSecret: nil, sndKey: nil, sndSecure: created.senderCanSecure,
                           status: .new, smpClientVersion: Int(clientVersion))
        }
    }

    /// NEW on `server`, subscribed: the queue's messages arrive as client events.
    /// With `queueData` the queue is created with its short link data, `corrId` being the one
    /// its sender ID was derived from, and `e2e` the key the link already names.
    /// `clientVersion` is the SMP client version the queue is described at (ours by default).
    func newRcvQueue(server: SMPServerAddress, senderCanSecure: Bool, e2e: X25519PrivateKey = X25519PrivateKey(),
                     queueData: QueueRequestData? = nil, corrId: [UInt8]? = nil, clientVersion: UInt16? = nil) async throws(AgentError) -> NewRcvQueue {
        let rcvKey = try await newAuthKey(for: server.description, config.recipientAuthAlgorithm)
        let dh = X25519PrivateKey()
        let auth = config.basicAuth
        let created = try await smp(server.description) { c throws(SMPClientError) in
            try await c.createQueue(recipientKey: rcvKey, dhKey: dh, subscribe: true, senderCanSecure: senderCanSecure, basicAuth: auth,
                                    queueData: queueData, corrId: corrId)
        }
        return NewRcvQueue(server: server, created: created, rcvKey: rcvKey, e2e: e2e, clientVersion: clientVersion ?? config.smpClientVersions.max)
    }

    /// Whether our queue addresses can say that the sender secures the queue (client version 3).
    var canSenderSecure: Bool { config.smpClientVersions.max >= SMPClientVersion.senderAuthKey }

    /// simplexmq `versionPQSupport_`: the PQ ratchet needs agent version 5 and, when known, e2e version 3.
    static func versionAllowsPQ(_ agentVersion: UInt16, e2eVersion: UInt16?) -> Bool {
        agentVersion >= AgentVersion.pqDoubleRatchet && (e2eVersion ?? E2EVersion.pqRatchet) >= E2EVersion.pqRatchet
    }

    func authKey(_ pkcs8: Data) throws(AgentError) -> PrivateAuthKey {
        if let key = authKeyCache[pkcs8] { return key }
        let key: PrivateAuthKey
        do { key = try PrivateAuthKey(pkcs8Encoded: [UInt8](pkcs8)) } catch { throw .store("bad stored key: \(error)") }
        if authKeyCache.count >= 4096 { authKeyCache.removeAll(keepingCapacity: true) }
        authKeyCache[pkcs8] = key
        return key
    }

    /// A new queue key for `server`: X25519 when `wanted` is and the relay's session is at SMP
    /// v7+ (it can verify X25519 authenticators), else Ed25519, which every version verifies.
    /// An unreachable relay gets Ed25519, so a queued confirmation still works.
    func newAuthKey(for server: String, _ wanted: KeyAlgorithm, sender: Bool = false) async throws(AgentError) -> PrivateAuthKey {
        var algorithm = KeyAlgorithm.ed25519
        // A sender's version comes through the proxy when its commands will (private routing).
        let version: UInt16? = if wanted != .x25519 { nil } else if sender { await senderVersion(server) } else {
            try? await smp(server, { c throws(SMPClientError) in try await c.negotiatedVersion() })
        }
        if let version, version >= SMPVersion.authCommands {
            algorithm = .x25519
        }
        do { return try PrivateAuthKey.generate(algorithm) } catch { throw .internalError("keys: \(error)") }
    }

    func serialize(_ r: PQRatchet) throws(AgentError) -> Data {
        do { return Data(try r.serialized()) } catch { throw .internalError("ratchet state: \(error)") }
    }

    func loadRatchet(_ connId: String) throws(AgentError) -> PQRatchet {
        if let r = ratchets.cached(connId) { return r }
        // A state that does not parse is a store error (wrapStore), a missing one internal.
        return try store.read { db in try Self.loadRatchet(db, connId, into: ratchets) }
    }

    /// Appends an outgoing message to the connection's sequence: next ids, hash chain, pending.
    func storeSndMessage(_ db: Database, connId: String, type: SndMessageType, plain: [UInt8], envelope: [UInt8],
                         sndQueueId: Int64? = nil) throws -> Int64 {
        try storeSndMessage(db, connId: connId, type: type, plain: plain, stored: .envelope(envelope), sndQueueId: sndQueueId)
    }

    /// `storeSndMessage` with the envelope whole or prepared; `conn`, when given, is the
    /// connection's current row in this transaction.
    func storeSndMessage(_ db: Database, connId: String, type: SndMessageType, plain: [UInt8], stored: StoredEnvelope,
                         sndQueueId: Int64? = nil, conn current: ConnectionRecord? = nil) throws -> Int64 {
        guard var conn = try current ?? db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
        conn.lastInternalMsgId += 1
        let hash = Data(CryptoHash.sha256(plain))
        var msg = SndMessageRecord(connId: connId, internalId: conn.lastInternalMsgId, internalSndId: conn.lastSndMsgId + 1,
                                   msgType: type, msgHash: hash, envelope: nil, status: .pending,
                                   createdAt: Date().timeIntervalSince1970, sndQueueId: sndQueueId)
        switch stored {
        case .envelope(let e): msg.envelope = Data(e)
        case .prepared(let p): msg.prepared = Data(p.serialized())
        }
        conn.lastSndMsgId += 1
        conn.lastSndMsgHash = hash
        try db.saveCounters(conn)
        try db.insertSndMessage(msg)
        return msg.internalId
    }
}
