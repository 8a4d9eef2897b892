import SimplexFoundation
import SMPProtocol
import SMPTransport

/// Private message routing (simplexmq Client.hs `connectSMPProxiedRelay`, `proxySMPCommand`,
/// `forwardSMPTransmission`): this client's relay is the proxy, and commands for another relay
/// travel encrypted to that relay, so it never sees the sender's address or session.
extension SMPClient {
    // MARK: client of a proxy

    /// PRXY: asks this client's relay (the proxy) for a session with `destination`, and checks
    /// the PKEY it answers: a version both speak, the destination's identity certificate matching
    /// its fingerprint, and its session key signed by its online certificate.
    public func connectProxiedRelay(_ destination: ProtocolServer, basicAuth: [UInt8]? = nil) async throws(SMPClientError) -> ProxiedRelay {
        let conn = try await connection()
        guard conn.session.version >= SMPVersion.sendingProxy else { throw .transport(.version) }
        let r = await conn.send([ClientConnection.Command(entityId: [], command: .prxy(server: destination, basicAuth: basicAuth), key: nil)],
                                timeout: config.connectTimeout + config.commandTimeout)
        let response = try r[0].get()
        guard case .pkey(let sessionId, let versions, let certKeyBytes) = response else { throw .unexpectedResponse(response.tag) }
        guard let version = SMPVersion.supported.compatible(with: versions) else { throw .server(.proxy(.broker(.transport(.version)))) }
        guard let certKey = try? CertChainPubKey.smpDecode(certKeyBytes) else { throw .unexpectedResponse("PKEY with a bad certificate chain") }
        guard let serverKey = Self.verifiedRelayKey(certKey, keyHash: destination.keyHash) else {
            throw .server(.proxy(.broker(.transport(.handshake(.identity)))))
        }
        return ProxiedRelay(sessionId: sessionId, version: version, basicAuth: basicAuth, serverKey: serverKey)
    }

    /// `validateRelay`: the chain leads to the identity certificate of `keyHash`, and its online
    /// (leaf) key signed an X25519 session key.
    static func verifiedRelayKey(_ certKey: CertChainPubKey, keyHash: [UInt8]) -> X25519PublicKey? {
        guard let verified = try? ServerChainVerifier(keyHash: keyHash).verify(chain: certKey.chain),
              let leaf = try? X509Certificate(der: verified.onlineCertificate),
              let leafKey = try? leaf.publicKey(),
              case .x25519(let key)? = certKey.signedKey.verify(with: leafKey)
        else { return nil }
        return key
    }

    /// SEND through the proxy; `key` is nil for a queue not secured yet. The destination's ERR
    /// is thrown as `.server`; the proxy's own errors are returned.
    public func proxySend(_ relay: ProxiedRelay, senderId: [UInt8], key: PrivateAuthKey?, notification: Bool = true,
                          body: [UInt8]) async throws(SMPClientError) -> Result<Void, ProxyClientError> {
        let r = try await proxyCommand(relay, entityId: senderId, command: .send(flags: MsgFlags(notification: notification), body: body), key: key)
        switch r {
        case .success(.ok): return .success(())
        case .success(let m): throw .unexpectedResponse(m.tag)
        case .failure(let e): return .failure(e)
        }
    }

    /// SKEY through the proxy (simplexmq `proxySecureSndSMPQueue`).
    public func proxySenderSecure(_ relay: ProxiedRelay, senderId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError) -> Result<Void, ProxyClientError> {
        let r = try await proxyCommand(relay, entityId: senderId, command: .skey(senderKey: key.publicKey.x509Encoded), key: key)
        switch r {
        case .success(.ok): return .success(())
        case .success(let m): throw .unexpectedResponse(m.tag)
        case .failure(let e): return .failure(e)
        }
    }

    /// LKEY through the proxy (simplexmq `proxySecureGetSMPQueueLink`).
    public func proxySecureGetLink(_ relay: ProxiedRelay, linkId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError)
        -> Result<(senderId: [UInt8], data: QueueLinkData), ProxyClientError>
    {
        try Self.linkResult(await proxyCommand(relay, entityId: linkId, command: .lkey(senderKey: key.publicKey.x509Encoded), key: key))
    }

    /// LGET through the proxy (simplexmq `proxyGetSMPQueueLink`).
    public func proxyGetLink(_ relay: ProxiedRelay, linkId: [UInt8]) async throws(SMPClientError)
        -> Result<(senderId: [UInt8], data: QueueLinkData), ProxyClientError>
    {
        try Self.linkResult(await proxyCommand(relay, entityId: linkId, command: .lget, key: nil))
    }

    private static func linkResult(_ r: Result<BrokerMessage, ProxyClientError>) throws(SMPClientError)
        -> Result<(senderId: [UInt8], data: QueueLinkData), ProxyClientError>
    {
        switch r {
        case .success(.lnk(let sid, let data)): return .success((sid, data))
        case .success(let m): throw .unexpectedResponse(m.tag)
        case .failure(let e): return .failure(e)
        }
    }

    /// PFWD: one sender command (SEND, SKEY, LKEY, LGET) for the destination of `relay`,
    /// authorized for the destination's session, encrypted to a fresh per-command key, and the
    /// destination's response.
    public func proxyCommand(_ relay: ProxiedRelay, entityId: [UInt8], command: SMPCommand,
                             key: PrivateAuthKey?) async throws(SMPClientError) -> Result<BrokerMessage, ProxyClientError> {
        let conn = try await connection()
        let relayParams = TransmissionParams(sessionId: relay.sessionId, version: relay.version)
        let commandKey = X25519PrivateKey()
        let corrId = SecureRandom.bytes(RawTransmission.corrIdLength)
        let secret: CryptoBoxKey
        let encrypted: [UInt8]
        do {
            secret = try CryptoBox.sharedKey(publicKey: relay.serverKey, privateKey: commandKey)
            let body = try command.smpEncoded(version: relay.version)
            var auth: [UInt8] = []
            if let key {
                let authorized = try RawTransmission.authorizedBytes(sessionId: relay.sessionId, corrId: corrId, entityId: entityId, body: body)
                auth = try TransmissionAuth.authorize(key: key, authorized: authorized, corrId: corrId, serverSessionKey: relay.serverKey)
            }
            let t = try RawTransmission(authorization: auth, corrId: corrId, entityId: entityId, body: body).encoded(relayParams)
            encrypted = try PrivateRouting.encryptTransmission(t, key: secret, corrId: corrId)
        } catch let e as TransportError {
            throw .transport(e)
        } catch {
            throw .transport(.largeMessage)
        }
        let pfwd = SMPCommand.pfwd(version: relay.version, publicKey: commandKey.publicKey.x509Encoded, encryptedTransmission: encrypted)
        let r = await conn.sendDetailed([ClientConnection.Command(entityId: relay.sessionId, command: pfwd, key: nil, corrId: corrId)],
                                        timeout: 2 * config.commandTimeout)
        switch r[0] {
        case .success(.pres(let er)):
            let batch: [UInt8]
            do {
                batch = try PrivateRouting.decryptResponse(er, key: secret, corrId: corrId)
            } catch {
                throw .badMessage("PRES does not decrypt: \(error)")
            }
            guard let ts = try? TransmissionBatch.split(batch), ts.count == 1 else { throw .transport(.block) }
            let message: BrokerMessage
            do {
                let t = try RawTransmission.parseFromServer(ts[0], relayParams)
                message = try BrokerMessage.parse(t.body, version: relay.version)
            } catch {
                throw .unexpectedResponse("unparseable forwarded response")
            }
            // The destination's ERR: the proxy was transparent, so this is the command's answer.
            if case .err(let e) = message { throw .server(e) }
            return .success(message)
        case .success(let m):
            return .failure(.unexpectedResponse(m.tag))
        case .failure(.client(.server(let e))):
            return .failure(.protocolError(e))
        case .failure(.client(.unexpectedResponse(let s))):
            return .failure(.unexpectedResponse(s))
        case .failure(.unparseable(let e)):
            return .failure(.responseError(e))
        case .failure(.client(let e)):
            throw e
        }
    }

    // MARK: a relay's connection to a destination

    /// The session of this (proxy) client with its relay, connecting first if needed.
    public func relaySession() async throws(SMPClientError) -> RelaySession {
        let s = try await connection().session
        return RelaySession(sessionId: s.sessionId, version: s.version, versions: s.versions, certKey: try? s.serverCertKey?.smpEncoded())
    }

    /// The session ID of the live connection, if any (a proxy finds PFWD's session by it).
    public var currentSessionId: [UInt8]? { currentSession?.sessionId }

    /// The live connection's session without connecting.
    public var currentRelaySession: RelaySession? {
        currentSession.map { s in
            RelaySession(sessionId: s.sessionId, version: s.version, versions: s.versions, certKey: try? s.serverCertKey?.smpEncoded())
        }
    }

    /// RFWD: forwards a client's PFWD to this client's relay, wrapped with the session secret,
    /// and returns the `EncResponse` for PRES.
    public func forwardTransmission(corrId fwdCorrId: [UInt8], version: UInt16, key: [UInt8],
                                    encryptedTransmission: [UInt8]) async -> Result<[UInt8], ForwardError> {
        let conn: ClientConnection
        do {
            conn = try await connection()
        } catch {
            return .failure(ForwardError(error.proxyError))
        }
        guard let secret = conn.session.sessionSecret else { return .failure(ForwardError(SMPClientError.transport(.noAuth).proxyError)) }
        let nonce = SecureRandom.bytes(RawTransmission.corrIdLength)
        let sealed: [UInt8]
        do {
            let fwd = FwdTransmission(corrId: fwdCorrId, version: version, key: key, encryptedTransmission: encryptedTransmission)
            sealed = try PrivateRouting.sealForwarded(fwd, sessionSecret: secret, corrId: nonce)
        } catch {
            return .failure(ForwardError(.crypto))
        }
        let r = await conn.sendDetailed([ClientConnection.Command(entityId: [], command: .rfwd(encryptedTransmission: sealed), key: nil, corrId: nonce)],
                                        timeout: config.commandTimeout)
        switch r[0] {
        case .success(.rres(let box)):
            guard let plain = try? PrivateRouting.openForwardedResponse(box, sessionSecret: secret, corrId: nonce) else {
                return .failure(ForwardError(.crypto))
            }
            // `PCEResponseError BLOCK` of the reference, as its client reports it.
            guard let fr = try? FwdResponse.smpDecode(plain) else { return .failure(ForwardError(.proxy(.broker(.response("BLOCK"))))) }
            return .success(fr.encryptedResponse)
        case .success(let m):
            return .failure(ForwardError(.proxy(.broker(.unexpected(m.tag)))))
        case .failure(.unparseable(let e)):
            // `PCEResponseError e`: RESPONSE with the error's text.
            return .failure(ForwardError(.proxy(.broker(.response(e.description)))))
        case .failure(.client(let e)):
            return .failure(ForwardError(e.proxyError))
        }
    }
}
