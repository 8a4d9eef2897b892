import Foundation
import SimplexFoundation
import SMPProtocol

/// Verifies and executes client transmissions against the queue store, as the reference's
/// `verifyTransmission` and `processCommand` do. Synchronous and thread-safe: called on each
/// connection's event loop, it returns the response (and a message to deliver after it) and
/// pushes any deliveries it causes to other connections.
final class CommandProcessor: Sendable {
    let store: QueueStore
    let config: SMPServerConfig
    /// Used to spend the same time on a verification when a queue or key does not exist
    /// (the reference's dummy keys), so timing does not tell which IDs exist.
    private let dummyEd25519: AnyPublicKey
    private let dummyEd448: AnyPublicKey
    private let dummyX25519: AnyPublicKey
    /// Counters for logs and benchmarks.
    let stats = ServerStats()

    /// Connections to destination relays when this relay proxies (nil: proxying off).
    let proxyAgent: SMPProxyAgent?

    init(store: QueueStore, config: SMPServerConfig, proxyAgent: SMPProxyAgent? = nil) {
        self.store = store
        self.config = config
        self.proxyAgent = proxyAgent
        dummyEd25519 = .ed25519(Ed25519PrivateKey().publicKey)
        dummyEd448 = .ed448(Ed448PrivateKey().publicKey)
        dummyX25519 = .x25519(X25519PrivateKey().publicKey)
    }

    /// Handles one parsed transmission: the response to it, and for SUB a message to send after
    /// the response (the reference sends it as a separate transmission without corrId). PRXY and
    /// PFWD of a proxying relay are answered later, on their own (nil response here).
    /// `forwarded`: the transmission came inside RFWD, where only sender commands are allowed.
    func process(_ p: RawTransmission.Parsed, client: ServerClient, session: ConnectionSession,
                 forwarded: Bool = false) -> (Outgoing?, Outgoing?) {
        let t = p.transmission
        func reply(_ m: BrokerMessage, entity: [UInt8]? = nil) -> Outgoing {
            Outgoing(corrId: t.corrId, entityId: entity ?? t.entityId, message: m)
        }
        let command: SMPCommand
        do {
            command = try SMPCommand.parse(t.body, version: session.version)
        } catch {
            return (reply(.err(error.errorType)), nil)
        }
        // Keys inside commands are parsed by the reference's command parser: a bad key is SYNTAX.
        guard keysParse(command) else { return (reply(.err(.cmd(.syntax))), nil) }
        if let e = command.credentialsError(hasAuthorization: p.authorization != nil, entityId: t.entityId) {
            return (reply(.err(e)), nil)
        }
        if forwarded, !command.allowedForwarded { return (reply(.err(.cmd(.prohibited))), nil) }
        // This relay serves no client services (no service certificates in the handshake), so a
        // service signature is never allowed and service commands fail as they do without a service.
        if t.serviceSignature != nil { return (reply(.err(.service)), nil) }
        if command.party == .proxiedClient, let proxyAgent {
            return (proxy(command, corrId: t.corrId, entityId: t.entityId, agent: proxyAgent, client: client), nil)
        }
        switch execute(command, p, client: client, session: session) {
        case .success(let (m, entity, message)): return (reply(m, entity: entity), message)
        case .failure(let e): return (reply(.err(e)), nil)
        }
    }

    typealias Outcome = Result<(BrokerMessage, [UInt8]?, Outgoing?), ErrorType>

    func ok(_ m: BrokerMessage = .ok) -> Outcome { .success((m, nil, nil)) }

    /// `verifyCmdAuthorization`: the authorization must match the key's algorithm; a signature of
    /// the other algorithm, or any authorization with no key, is checked against a dummy key of
    /// the authorization's own kind and fails.
    /// `verifiedWithKeys`: the authorization verifies with any of the queue's recipient keys
    /// (with none, the dummy check of `verify` keeps the timing).
    private func verify(_ p: RawTransmission.Parsed, anyOf keys: [AnyPublicKey], session: ConnectionSession) -> Bool {
        guard !keys.isEmpty else { return verify(p, nil, session: session) }
        return keys.contains { verify(p, $0, session: session) }
    }

    private func verify(_ p: RawTransmission.Parsed, _ key: AnyPublicKey?, session: ConnectionSession) -> Bool {
        guard let auth = p.authorization else { return false }
        let corrId = p.transmission.corrId
        func check(_ k: AnyPublicKey) -> Bool {
            TransmissionAuth.verify(key: k, authorization: auth.bytes, authorized: p.authorized, corrId: corrId, serverSessionKey: session.serverSessionKey,
                                    keys: session.authenticatorKeys)
        }
        switch (auth, key) {
        case (.ed25519Signature, .ed25519?), (.ed448Signature, .ed448?), (.authenticator, .x25519?):
            return check(key!)
        case (.ed25519Signature, _): _ = check(dummyEd25519)
        case (.ed448Signature, _): _ = check(dummyEd448)
        case (.authenticator, _): _ = check(dummyX25519)
        }
        return false
    }

    private func keysParse(_ c: SMPCommand) -> Bool {
        func auth(_ k: [UInt8]) -> Bool { (try? QueueAuthKey(x509Encoded: k)) != nil }
        func dh(_ k: [UInt8]) -> Bool { (try? X25519PublicKey(x509Encoded: k)) != nil }
        switch c {
        case .new(let r): return auth(r.recipientAuthKey) && dh(r.recipientDhKey) && (r.ntfCreds.map { auth($0.notifierKey) && dh($0.recipientNtfDhKey) } ?? true)
        case .key(let k), .skey(let k), .lkey(let k): return auth(k)
        case .rkey(let ks): return ks.allSatisfy(auth)
        case .nkey(let k, let d): return auth(k) && dh(d)
        case .pfwd(_, let k, _): return dh(k)
        default: return true
        }
    }

    private func execute(_ command: SMPCommand, _ p: RawTransmission.Parsed, client: ServerClient, session: ConnectionSession) -> Outcome {
        let t = p.transmission
        switch command.party {
        case .idleClient:
            return ok(.pong)

        case .recipientService, .notifierService:
            // `verifyServiceCmd` without a service session.
            return .failure(.service)

        case .proxiedClient:
            // This relay does not proxy (`allowSMPProxy` off): PRXY is refused as the reference
            // refuses it then, and PFWD finds no session.
            if case .prxy = command { return .failure(.proxy(.basicAuth)) }
            return .failure(.proxy(.noSession))

        case .proxyService:
            guard case .rfwd(let encrypted) = command else { return .failure(.internalError) }
            return forwarded(encrypted, corrId: t.corrId, client: client, session: session).map { ($0, [], nil) }

        case .creator:
            guard case .new(let req) = command else { return .failure(.internalError) }
            return create(req, p, client: client, session: session)

        case .recipient:
            let rid = ID24(t.entityId)
            let queue = rid.flatMap { store.recipientQueue($0) }
            guard verify(p, anyOf: queue.map { $0.recipientKeys.compactMap(publicKey) } ?? [], session: session), let rid, let queue
            else { return .failure(.auth) }
            // OFF and DEL act on blocked queues too; everything else gets BLOCKED.
            switch command {
            case .off, .del: break
            default: if let b = queue.blocked { return .failure(.blocked(b)) }
            }
            return recipientCommand(command, rid: rid, queue: queue, corrId: t.corrId, client: client)

        case .sender:
            let sid = ID24(t.entityId)
            let queue = sid.flatMap { store.senderQueue($0) }
            switch command {
            case .skey(let keyBytes):
                // `verifySecure`: only an unsecured messaging queue (or one secured with this key).
                let allowed = queue.map { $0.mode == .messaging && ($0.senderKey == nil || $0.senderKey == (try? QueueAuthKey(x509Encoded: keyBytes))) } ?? false
                let key = allowed ? (try? AnyPublicKey(x509Encoded: keyBytes, allowing: AnyPublicKey.authAlgorithms)) : nil
                guard verify(p, key, session: session), let sid, let queue else { return .failure(.auth) }
                if let b = queue.blocked { return .failure(.blocked(b)) }
                guard let stored = try? QueueAuthKey(x509Encoded: keyBytes) else { return .failure(.cmd(.syntax)) }
                return storeResult { () throws(QueueStore.Failure) in try store.senderSecure(sid, senderKey: stored) }
            case .send(let flags, let body):
                guard let queue, let sid else {
                    if p.authorization != nil { _ = verify(p, nil, session: session) }
                    return .failure(.auth)
                }
                if let senderKey = queue.senderKey {
                    guard verify(p, publicKey(senderKey), session: session) else { return .failure(.auth) }
                } else if p.authorization != nil {
                    return .failure(.auth)
                }
                guard body.count <= SMPVersion.maxMessageLength(session.version) else { return .failure(.largeMessage) }
                if queue.suspended { return .failure(.auth) }
                if let b = queue.blocked { return .failure(.blocked(b)) }
                return send(sid, flags: flags, body: body)
            default:
                return .failure(.internalError)
            }

        case .linkClient:
            let queue = store.linkQueue(t.entityId)
            switch command {
            case .lkey(let keyBytes):
                // Authorized by the key it installs, as SKEY is.
                let allowed = queue.map { $0.mode == .messaging && ($0.senderKey == nil || $0.senderKey == (try? QueueAuthKey(x509Encoded: keyBytes))) } ?? false
                let key = allowed ? (try? AnyPublicKey(x509Encoded: keyBytes, allowing: AnyPublicKey.authAlgorithms)) : nil
                guard verify(p, key, session: session), let queue else { return .failure(.auth) }
                if let b = queue.blocked { return .failure(.blocked(b)) }
                guard let stored = try? QueueAuthKey(x509Encoded: keyBytes) else { return .failure(.cmd(.syntax)) }
                do {
                    let (sid, data) = try store.linkSecure(t.entityId, senderKey: stored)
                    return ok(.lnk(senderId: sid.bytes, data: data))
                } catch {
                    return .failure(errorType(error))
                }
            case .lget:
                guard let queue, queue.isContactQueue else { return .failure(.auth) }
                if let b = queue.blocked { return .failure(.blocked(b)) }
                do {
                    let (sid, data) = try store.linkGet(t.entityId)
                    return ok(.lnk(senderId: sid.bytes, data: data))
                } catch {
                    return .failure(errorType(error))
                }
            default:
                return .failure(.internalError)
            }

        case .notifier:
            let nid = ID24(t.entityId)
            let queue = nid.flatMap { store.notifierQueue($0) }
            guard verify(p, queue?.notifierKey.flatMap(publicKey), session: session), let nid, queue != nil else { return .failure(.auth) }
            do {
                let replaced = try store.subscribeNotifier(nid, client: client)
                replaced?.send([.event(nid.bytes, .end)])
                return ok(.sok(serviceId: nil))
            } catch {
                return .failure(errorType(error))
            }
        }
    }

    /// NEW: verified with the key it carries, then basic auth, then the queue with its link data
    /// and notifier (v17) if asked. Answers IDS in the connection's version.
    private func create(_ req: NewQueueRequest, _ p: RawTransmission.Parsed, client: ServerClient, session: ConnectionSession) -> Outcome {
        let key = try? AnyPublicKey(x509Encoded: req.recipientAuthKey, allowing: AnyPublicKey.authAlgorithms)
        guard verify(p, key, session: session), let storedKey = try? QueueAuthKey(x509Encoded: req.recipientAuthKey) else { return .failure(.auth) }
        if let password = config.createPassword {
            guard let given = req.basicAuth, constantTimeEquals(given, Array(password.utf8)) else { return .failure(.auth) }
        }
        guard let rcvDh = try? X25519PublicKey(x509Encoded: req.recipientDhKey) else { return .failure(.cmd(.syntax)) }
        let serverDh = X25519PrivateKey()
        guard let secret = sharedSecret(rcvDh, serverDh) else { return .failure(.internalError) }
        var newLink: QueueStore.NewLink?
        if let qd = req.queueData {
            // The client-chosen sender ID must be the hash of this transmission's corrId
            // (no probing whether an ID exists by creating a queue with it).
            guard qd.senderId == QueueRequestData.senderId(corrId: p.transmission.corrId), let sid = ID24(qd.senderId) else {
                return .failure(.cmd(.prohibited))
            }
            switch qd {
            case .messaging(_, let data): newLink = QueueStore.NewLink(senderId: sid, linkId: nil, data: data)
            case .contact(let lid, _, let data): newLink = QueueStore.NewLink(senderId: sid, linkId: lid, data: data)
            }
        }
        var notifier: (key: QueueAuthKey, rcvNtfDhSecret: Key32)?
        var serverNtfDh: X25519PrivateKey?
        if let nc = req.ntfCreds {
            guard let nkey = try? QueueAuthKey(x509Encoded: nc.notifierKey), let ndh = try? X25519PublicKey(x509Encoded: nc.recipientNtfDhKey) else {
                return .failure(.cmd(.syntax))
            }
            let k = X25519PrivateKey()
            guard let s = sharedSecret(ndh, k) else { return .failure(.internalError) }
            notifier = (nkey, s)
            serverNtfDh = k
        }
        do {
            let c = try store.create(recipientKey: storedKey, rcvDhSecret: secret, mode: req.mode,
                                     subscriber: req.subscribe ? client : nil, link: newLink, notifier: notifier)
            stats.queuesCreated.add(1)
            var ntfCreds: ServerNtfCreds?
            if let nid = c.notifierId, let k = serverNtfDh {
                ntfCreds = ServerNtfCreds(notifierId: nid.bytes, serverNtfDhKey: k.publicKey.x509Encoded)
            }
            let qids = QueueIDs(recipientId: c.rid.bytes, senderId: c.sid.bytes, serverDhKey: serverDh.publicKey.x509Encoded,
                                queueMode: req.mode, linkId: c.linkId, serviceId: nil, serverNtfCreds: ntfCreds)
            return .success((.ids(qids), [], nil))
        } catch let e as QueueStore.Failure {
            return .failure(errorType(e))
        } catch {
            return .failure(.internalError)
        }
    }

    private func sharedSecret(_ pub: X25519PublicKey, _ priv: X25519PrivateKey) -> Key32? {
        (try? CryptoBox.sharedKey(publicKey: pub, privateKey: priv)).flatMap { Key32($0.rawRepresentation) }
    }

    private func recipientCommand(_ command: SMPCommand, rid: ID24, queue: QueueStore.QueueView, corrId: [UInt8], client: ServerClient) -> Outcome {
        do {
            switch command {
            case .sub:
                let (replaced, next) = try store.subscribe(rid, client: client)
                replaced?.send([.event(rid.bytes, .end)])
                // SOK (OK before v16), then the waiting message as its own transmission without corrId.
                let message = try next.map { Outgoing.event(rid.bytes, try msgResponse($0, rid: rid)) }
                return .success((.sok(serviceId: nil), nil, message))
            case .get:
                let next = try store.get(rid, client: client)
                return ok(try next.map { try msgResponse($0, rid: rid) } ?? .ok)
            case .ack(let msgId):
                let (next, _) = try store.ack(rid, msgId: msgId, client: client)
                return ok(try next.map { try msgResponse($0, rid: rid) } ?? .ok)
            case .key(let keyBytes):
                guard let key = try? QueueAuthKey(x509Encoded: keyBytes) else { return .failure(.cmd(.syntax)) }
                try store.secure(rid, senderKey: key)
                return ok()
            case .rkey(let keyBytes):
                // Only contact queues take several recipient keys (`checkMode QMContact`: AUTH otherwise).
                guard queue.mode == .contact else { return .failure(.auth) }
                var keys: [QueueAuthKey] = []
                for k in keyBytes {
                    guard let key = try? QueueAuthKey(x509Encoded: k) else { return .failure(.cmd(.syntax)) }
                    keys.append(key)
                }
                guard !keys.isEmpty else { return .failure(.cmd(.syntax)) }
                try store.updateKeys(rid, keys: keys)
                return ok()
            case .nkey(let keyBytes, let dhBytes):
                guard let key = try? QueueAuthKey(x509Encoded: keyBytes), let dh = try? X25519PublicKey(x509Encoded: dhBytes) else {
                    return .failure(.cmd(.syntax))
                }
                let serverNtfDh = X25519PrivateKey()
                guard let secret = sharedSecret(dh, serverNtfDh) else { return .failure(.internalError) }
                let nid = try store.addNotifier(rid, key: key, rcvNtfDhSecret: secret)
                return ok(.nid(notifierId: nid.bytes, serverNtfDhKey: serverNtfDh.publicKey.x509Encoded))
            case .ndel:
                try store.deleteNotifier(rid)
                return ok()
            case .off:
                try store.suspend(rid)
                return ok()
            case .del:
                // The other connection subscribed to it learns with DELD (END before v10).
                let subscriber = try store.delete(rid)
                if let subscriber, subscriber !== client { subscriber.send([.event(rid.bytes, .deld)]) }
                return ok()
            case .lset(let lid, let data):
                try store.setLink(rid, linkId: lid, data: data)
                return ok()
            case .ldel:
                try store.deleteLink(rid)
                return ok()
            case .que:
                let info = try store.info(rid)
                return ok(.info(json: queueInfoJSON(info)))
            default:
                return .failure(.internalError)
            }
        } catch let e as QueueStore.Failure {
            return .failure(errorType(e))
        } catch {
            return .failure(.internalError)
        }
    }

    private func send(_ sid: ID24, flags: MsgFlags, body: [UInt8]) -> Outcome {
        do {
            let (delivery, ntf) = try store.send(sid, notification: flags.notification, body: body, now: Self.now())
            stats.messagesReceived.add(1)
            if let delivery {
                let msg = try msgResponse(delivery.message, rid: delivery.recipientId, secret: delivery.rcvDhSecret)
                delivery.client.send([.event(delivery.recipientId.bytes, msg)])
            }
            if let ntf { notify(ntf) }
            return ok()
        } catch let e as QueueStore.Failure {
            return .failure(errorType(e))
        } catch {
            return .failure(.internalError)
        }
    }

    /// NMSG: `NMsgMeta` (msgId, timestamp) encrypted to the recipient's notification key.
    private func notify(_ n: NotifierDelivery) {
        var meta = SMPEncoder()
        try? meta.shortString(n.msgId.bytes)
        meta.int64(n.timestamp)
        let nonce = SecureRandom.bytes(24)
        guard let key = try? CryptoBoxKey(rawRepresentation: n.rcvNtfDhSecret.bytes),
              let enc = try? CryptoBox.cbEncrypt(key: key, nonce: nonce, message: meta.bytes, paddedLength: 128)
        else { return }
        n.client.send([.event(n.notifierId.bytes, .nmsg(nonce: nonce, encryptedMeta: enc))])
    }

    /// MSG with the body encrypted to the recipient (crypto_box with the queue's DH secret and
    /// the message ID as nonce), so sent and received bytes never match on the wire.
    private func msgResponse(_ m: StoredMessage, rid: ID24, secret: Key32? = nil) throws -> BrokerMessage {
        guard let key = secret ?? store.rcvDhSecret(rid) else { throw QueueStore.Failure.auth }
        let plain: RcvMessageBody = if let body = m.body {
            .message(timestamp: m.timestamp, flags: MsgFlags(notification: m.notification), body: body)
        } else {
            .quotaExceeded(timestamp: m.timestamp)
        }
        let enc = try CryptoBox.cbEncrypt(key: try CryptoBoxKey(rawRepresentation: key.bytes), nonce: m.msgId.bytes,
                                          message: try plain.smpEncoded(), paddedLength: RcvMessageBody.paddedLength)
        stats.messagesDelivered.add(1)
        return .msg(msgId: m.msgId.bytes, encryptedBody: enc)
    }

    /// `QueueInfo` as the reference's aeson encoding writes it (fields without a value omitted).
    private func queueInfoJSON(_ info: QueueStore.QueueInfo) -> [UInt8] {
        var obj: [String: Any] = ["qiSnd": info.secured, "qiNtf": info.hasNotifier, "qiSize": info.size]
        if info.subscribed {
            var sub: [String: Any] = ["qSubThread": "subThread"]
            if let d = info.delivered { sub["qDelivered"] = Data(d.bytes).base64EncodedString() }
            obj["qiSub"] = sub
        }
        if let m = info.first {
            let ts = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(m.timestamp)))
            obj["qiMsg"] = ["msgId": Data(m.msgId.bytes).base64EncodedString(), "msgTs": ts, "msgType": m.body == nil ? "quota" : "message"]
        }
        let data = (try? JSONSerialization.data(withJSONObject: obj, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Array(data)
    }

    private func storeResult(_ body: () throws(QueueStore.Failure) -> Void) -> Outcome {
        do {
            try body()
            return ok()
        } catch {
            return .failure(errorType(error))
        }
    }

    private func errorType(_ f: QueueStore.Failure) -> ErrorType {
        switch f {
        case .auth: .auth
        case .quota: .quota
        case .noMessage: .noMessage
        case .prohibited: .cmd(.prohibited)
        case .duplicate: .duplicate
        case .internalError: .internalError
        }
    }

    private func errorType(_ e: any Error) -> ErrorType {
        (e as? QueueStore.Failure).map { errorType($0) } ?? .internalError
    }

    private func publicKey(_ k: QueueAuthKey) -> AnyPublicKey? {
        switch k {
        case .ed25519(let raw): try? AnyPublicKey(algorithm: .ed25519, rawRepresentation: raw.bytes)
        case .x25519(let raw): try? AnyPublicKey(algorithm: .x25519, rawRepresentation: raw.bytes)
        case .ed448(let raw): try? AnyPublicKey(algorithm: .ed448, rawRepresentation: raw)
        }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}

/// What the processor needs to know about the connection a transmission came on.
struct ConnectionSession: Sendable {
    let sessionId: [UInt8]
    let version: UInt16
    /// Per-connection server key for DH authenticators (X25519 queue keys).
    let serverSessionKey: X25519PrivateKey?
    /// crypto_box key of dh(client's handshake key, server session key): the secret of the p2r
    /// layer when the client is a proxy (`sessSecret'`); nil when the client sent no key.
    var sessionSecret: CryptoBoxKey? = nil
    /// DH keys of the X25519 queue keys that authorized commands in this session (none for a
    /// forwarded transmission, which is verified once).
    var authenticatorKeys: AuthenticatorKeyCache? = nil

    var params: TransmissionParams { TransmissionParams(sessionId: sessionId, version: version) }
}
