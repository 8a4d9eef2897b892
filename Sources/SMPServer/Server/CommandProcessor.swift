import Foundation
import SimplexFoundation
import SMPProtocol

/// Verifies and executes client transmissions against the queue store. Synchronous and
/// thread-safe: called on each connection's event loop, it returns the response and pushes
/// any deliveries it causes to other connections.
final class CommandProcessor: Sendable {
    let store: QueueStore
    let config: SMPServerConfig
    /// Used to spend the same time on a signature check when a queue does not exist.
    private let dummyKey: AnyPublicKey
    /// Counters for logs and benchmarks.
    let stats = ServerStats()

    init(store: QueueStore, config: SMPServerConfig) {
        self.store = store
        self.config = config
        dummyKey = .ed25519(Ed25519PrivateKey().publicKey)
    }

    /// Handles one transmission and returns its response. `authorized` is computed lazily from
    /// the connection's session ID.
    func process(_ t: RawTransmission, client: ServerClient, session: ConnectionSession) -> RawTransmission {
        func reply(_ m: BrokerMessage, entity: [UInt8]? = nil) -> RawTransmission {
            RawTransmission(corrId: t.corrId, entityId: entity ?? t.entityId, body: (try? m.smpEncoded()) ?? Array("ERR INTERNAL".utf8))
        }
        guard t.corrId.count == RawTransmission.corrIdLength else { return reply(.err(.cmd(.syntax))) }
        let command: SMPCommand
        do {
            command = try SMPCommand.smpDecode(t.body)
        } catch let e as SMPProtocolError {
            return reply(.err(e.errorType))
        } catch {
            return reply(.err(.cmd(.syntax)))
        }
        let result = execute(command, t, client: client, session: session)
        switch result {
        case .success(let (m, entity)): return reply(m, entity: entity)
        case .failure(let e): return reply(.err(e))
        }
    }

    private typealias Outcome = Result<(BrokerMessage, [UInt8]?), ErrorType>

    private func execute(_ command: SMPCommand, _ t: RawTransmission, client: ServerClient, session: ConnectionSession) -> Outcome {
        func verify(_ key: AnyPublicKey?) -> Bool {
            guard let authorized = try? t.authorizedBytes(sessionId: session.sessionId) else { return false }
            return TransmissionAuth.verify(
                key: key ?? dummyKey, authorization: t.authorization, authorized: authorized,
                corrId: t.corrId, serverSessionKey: session.serverSessionKey) && key != nil
        }

        switch command.party {
        case .anyone:
            return .success((.pong, nil))

        case .creator:
            guard case .new(let req) = command else { return .failure(.internalError) }
            guard t.entityId.isEmpty else { return .failure(.cmd(.hasAuth)) }
            guard !t.authorization.isEmpty else { return .failure(.cmd(.noAuth)) }
            guard let authKey = try? AnyPublicKey(x509Encoded: req.recipientAuthKey, allowing: AnyPublicKey.authAlgorithms),
                  let storedKey = try? QueueAuthKey(x509Encoded: req.recipientAuthKey),
                  verify(authKey)
            else { return .failure(.auth) }
            if let password = config.createPassword {
                guard let given = req.basicAuth, constantTimeEquals(given, Array(password.utf8)) else { return .failure(.auth) }
            }
            guard let rcvDh = try? X25519PublicKey(x509Encoded: req.recipientDhKey) else { return .failure(.cmd(.syntax)) }
            let serverDh = X25519PrivateKey()
            guard let secretKey = try? CryptoBox.sharedKey(publicKey: rcvDh, privateKey: serverDh), let secret = Key32(secretKey.rawRepresentation) else {
                return .failure(.internalError)
            }
            var newLink: QueueStore.NewLink?
            if let qd = req.queueData {
                // The client-chosen sender ID must be the hash of this transmission's corrId
                // (simplexmq: no probing whether an ID exists by creating a queue with it).
                guard qd.senderId == QueueRequestData.senderId(corrId: t.corrId), let sid = ID24(qd.senderId) else {
                    return .failure(.cmd(.prohibited))
                }
                switch qd {
                case .messaging(_, let data):
                    newLink = QueueStore.NewLink(senderId: sid, linkId: nil, data: data)
                case .contact(let lidBytes, _, let data):
                    // Deviation: link IDs are 24 bytes, like every other ID of this relay.
                    guard let lid = ID24(lidBytes) else { return .failure(.cmd(.syntax)) }
                    newLink = QueueStore.NewLink(senderId: sid, linkId: lid, data: data)
                }
            }
            do {
                let ids = try store.create(recipientKey: storedKey, rcvDhSecret: secret, senderCanSecure: req.senderCanSecure,
                                           subscriber: req.subscribe ? client : nil, link: newLink)
                stats.queuesCreated.add(1)
                let qids = QueueIDs(recipientId: ids.rid.bytes, senderId: ids.sid.bytes, serverDhKey: serverDh.publicKey.x509Encoded,
                                    senderCanSecure: req.senderCanSecure, linkId: ids.linkId?.bytes, linkForm: req.linkForm)
                return .success((.ids(qids), []))
            } catch let e as QueueStore.Failure {
                return .failure(errorType(e))
            } catch {
                return .failure(.internalError)
            }

        case .recipient:
            guard !t.entityId.isEmpty else { return .failure(.cmd(.noEntity)) }
            guard !t.authorization.isEmpty else { return .failure(.cmd(.noAuth)) }
            let rid = ID24(t.entityId)
            let queue = rid.flatMap { store.recipientQueue($0) }
            guard verify(queue.map { publicKey($0.recipientKey) } ?? nil), let rid else { return .failure(.auth) }
            return recipientCommand(command, rid: rid, client: client)

        case .sender:
            guard !t.entityId.isEmpty else { return .failure(.cmd(.noEntity)) }
            let sid = ID24(t.entityId)
            let queue = sid.flatMap { store.senderQueue($0) }
            switch command {
            case .skey(let keyBytes):
                guard !t.authorization.isEmpty else { return .failure(.cmd(.noAuth)) }
                let key = try? AnyPublicKey(x509Encoded: keyBytes, allowing: AnyPublicKey.authAlgorithms)
                guard verify(key), let sid, let stored = try? QueueAuthKey(x509Encoded: keyBytes) else { return .failure(.auth) }
                return storeResult { () throws(QueueStore.Failure) in try store.senderSecure(sid, senderKey: stored) }
            case .send(let flags, let body):
                guard let queue, let sid else {
                    if !t.authorization.isEmpty { _ = verify(nil) }
                    return .failure(.auth)
                }
                if let senderKey = queue.senderKey {
                    guard !t.authorization.isEmpty, verify(publicKey(senderKey)) else { return .failure(.auth) }
                } else if !t.authorization.isEmpty {
                    return .failure(.auth)
                }
                guard body.count <= SMPVersion.maxMessageLength else { return .failure(.largeMessage) }
                return send(sid, flags: flags, body: body)
            default:
                return .failure(.internalError)
            }

        case .linkClient:
            guard !t.entityId.isEmpty else { return .failure(.cmd(.noEntity)) }
            let lid = ID24(t.entityId)
            switch command {
            case .lkey(let keyBytes):
                // Authorized by the key it installs, as SKEY is.
                guard !t.authorization.isEmpty else { return .failure(.cmd(.noAuth)) }
                let key = try? AnyPublicKey(x509Encoded: keyBytes, allowing: AnyPublicKey.authAlgorithms)
                guard verify(key), let lid, let stored = try? QueueAuthKey(x509Encoded: keyBytes) else { return .failure(.auth) }
                do {
                    let (sid, data) = try store.linkSecure(lid, senderKey: stored)
                    return .success((.lnk(senderId: sid.bytes, data: data), nil))
                } catch {
                    return .failure(errorType(error))
                }
            case .lget:
                guard t.authorization.isEmpty else { return .failure(.cmd(.hasAuth)) }
                guard let lid else { return .failure(.auth) }
                do {
                    let (sid, data) = try store.linkGet(lid)
                    return .success((.lnk(senderId: sid.bytes, data: data), nil))
                } catch {
                    return .failure(errorType(error))
                }
            default:
                return .failure(.internalError)
            }

        case .notifier:
            guard !t.entityId.isEmpty else { return .failure(.cmd(.noEntity)) }
            guard !t.authorization.isEmpty else { return .failure(.cmd(.noAuth)) }
            let nid = ID24(t.entityId)
            let queue = nid.flatMap { store.notifierQueue($0) }
            guard verify(queue.map { publicKey($0.key) } ?? nil), let nid else { return .failure(.auth) }
            do {
                let replaced = try store.subscribeNotifier(nid, client: client)
                replaced?.send([RawTransmission(corrId: [], entityId: nid.bytes, body: Array("END".utf8))])
                return .success((.ok, nil))
            } catch {
                return .failure(errorType(error))
            }
        }
    }

    private func recipientCommand(_ command: SMPCommand, rid: ID24, client: ServerClient) -> Outcome {
        do {
            switch command {
            case .sub:
                let (replaced, next) = try store.subscribe(rid, client: client)
                replaced?.send([RawTransmission(corrId: [], entityId: rid.bytes, body: Array("END".utf8))])
                return .success((try next.map { try msgResponse($0, rid: rid) } ?? .ok, nil))
            case .get:
                let next = try store.get(rid, client: client)
                return .success((try next.map { try msgResponse($0, rid: rid) } ?? .ok, nil))
            case .ack(let msgIdBytes):
                guard let msgId = ID24(msgIdBytes) else { return .failure(.noMessage) }
                let next = try store.ack(rid, msgId: msgId, client: client)
                return .success((try next.map { try msgResponse($0, rid: rid) } ?? .ok, nil))
            case .key(let keyBytes):
                guard let key = try? QueueAuthKey(x509Encoded: keyBytes) else { return .failure(.cmd(.syntax)) }
                try store.secure(rid, senderKey: key)
                return .success((.ok, nil))
            case .nkey(let keyBytes, let dhBytes):
                guard let key = try? QueueAuthKey(x509Encoded: keyBytes), let dh = try? X25519PublicKey(x509Encoded: dhBytes) else {
                    return .failure(.cmd(.syntax))
                }
                let serverNtfDh = X25519PrivateKey()
                guard let secret = (try? CryptoBox.sharedKey(publicKey: dh, privateKey: serverNtfDh)).flatMap({ Key32($0.rawRepresentation) }) else {
                    return .failure(.internalError)
                }
                let nid = try store.addNotifier(rid, key: key, rcvNtfDhSecret: secret)
                return .success((.nid(notifierId: nid.bytes, serverNtfDhKey: serverNtfDh.publicKey.x509Encoded), nil))
            case .ndel:
                try store.deleteNotifier(rid)
                return .success((.ok, nil))
            case .off:
                try store.suspend(rid)
                return .success((.ok, nil))
            case .del:
                let subscriber = try store.delete(rid)
                if let subscriber, subscriber !== client {
                    subscriber.send([RawTransmission(corrId: [], entityId: rid.bytes, body: Array("END".utf8))])
                }
                return .success((.ok, nil))
            case .lset(let lidBytes, let data):
                guard let lid = ID24(lidBytes) else { return .failure(.cmd(.syntax)) }
                try store.setLink(rid, linkId: lid, data: data)
                return .success((.ok, nil))
            case .ldel:
                try store.deleteLink(rid)
                return .success((.ok, nil))
            case .que:
                let info = try store.info(rid)
                return .success((.info(json: queueInfoJSON(info)), nil))
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
                delivery.client.send([RawTransmission(corrId: [], entityId: delivery.recipientId.bytes, body: try msg.smpEncoded())])
            }
            if let ntf { notify(ntf) }
            return .success((.ok, nil))
        } catch let e as QueueStore.Failure {
            return .failure(errorType(e))
        } catch {
            return .failure(.internalError)
        }
    }

    private func notify(_ n: NotifierDelivery) {
        var meta = SMPEncoder()
        try? meta.shortString(n.msgId.bytes)
        meta.int64(n.timestamp)
        let nonce = SecureRandom.bytes(24)
        guard let key = try? CryptoBoxKey(rawRepresentation: n.rcvNtfDhSecret.bytes),
              let enc = try? CryptoBox.cbEncrypt(key: key, nonce: nonce, message: meta.bytes, paddedLength: 128),
              let body = try? BrokerMessage.nmsg(nonce: nonce, encryptedMeta: enc).smpEncoded()
        else { return }
        n.client.send([RawTransmission(corrId: [], entityId: n.notifierId.bytes, body: body)])
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

    private func queueInfoJSON(_ info: QueueStore.QueueInfo) -> [UInt8] {
        var obj: [String: Any] = ["qiSnd": info.secured, "qiNtf": info.hasNotifier, "qiSize": info.size]
        if info.subscribed {
            var sub: [String: Any] = ["qSubThread": "subThread"]
            if let d = info.delivered { sub["qDelivered"] = Base64URL.encode(d.bytes) }
            obj["qiSub"] = sub
        }
        if let m = info.first {
            let ts = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(m.timestamp)))
            obj["qiMsg"] = ["msgId": Base64URL.encode(m.msgId.bytes), "msgTs": ts, "msgType": m.body == nil ? "quota" : "message"]
        }
        let data = (try? JSONSerialization.data(withJSONObject: obj, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Array(data)
    }

    private func storeResult(_ body: () throws(QueueStore.Failure) -> Void) -> Outcome {
        do {
            try body()
            return .success((.ok, nil))
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
}
