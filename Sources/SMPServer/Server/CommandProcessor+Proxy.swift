import SimplexFoundation
import SMPClient
import SMPProtocol

/// The proxying relay's side of private message routing (the reference's `processProxiedCmd`):
/// PRXY opens or reuses this relay's connection to the destination and answers PKEY; PFWD wraps
/// the client's encrypted transmission in RFWD on that connection and answers PRES with the
/// destination's encrypted response. Both wait on the network, so they are answered on their
/// own once done, while the connection goes on with other commands.
extension CommandProcessor {
    /// Answers at once what needs no network (refused PRXY, unknown session), in order with the
    /// block's other responses; otherwise starts the work and returns nil.
    func proxy(_ command: SMPCommand, corrId: [UInt8], entityId: [UInt8], agent: SMPProxyAgent, client: ServerClient) -> Outgoing? {
        switch command {
        case .prxy(let server, let auth):
            // `allowProxy`: proxying on, and the relay's password (when it has one) given.
            let authorized = config.allowSMPProxy && config.createPassword.map { auth == Array($0.utf8) } ?? true
            guard authorized else { return Outgoing(corrId: corrId, entityId: entityId, message: .err(.proxy(.basicAuth))) }
            let limit = config.proxyClientConcurrency
            client.proxyStarted(limit: limit)
            Task {
                let m = await self.relaySession(server, agent: agent)
                client.send([Outgoing(corrId: corrId, entityId: entityId, message: m)])
                client.proxyFinished(limit: limit)
            }
            return nil
        case .pfwd(let version, let key, let encrypted):
            guard let destination = agent.client(sessionId: entityId) else {
                return Outgoing(corrId: corrId, entityId: entityId, message: .err(.proxy(.noSession)))
            }
            let limit = config.proxyClientConcurrency
            client.proxyStarted(limit: limit)
            Task {
                defer { client.proxyFinished(limit: limit) }
                let m = await self.forward(destination, sessionId: entityId, corrId: corrId, version: version, key: key, encrypted: encrypted)
                client.send([Outgoing(corrId: corrId, entityId: entityId, message: m)])
            }
            return nil
        default:
            return Outgoing(corrId: corrId, entityId: entityId, message: .err(.internalError))
        }
    }

    /// PKEY with the destination's session, its version range capped at `proxiedSMPRelayVRange`
    /// (so clients are not told which newer versions the destination has), and its signed key.
    private func relaySession(_ server: ProtocolServer, agent: SMPProxyAgent) async -> BrokerMessage {
        switch await agent.session(with: server) {
        case .failure(let e):
            return .err(e)
        case .success(let s):
            guard let range = s.versions?.intersection(SMPVersion.proxied), s.version >= SMPVersion.sendingProxy else {
                return .err(.proxy(.broker(.transport(.version))))
            }
            guard let certKey = s.certKey else { return .err(.proxy(.broker(.transport(.noAuth)))) }
            stats.proxySessions.add(1)
            return .pkey(sessionId: s.sessionId, versions: range, certChainPubKey: certKey)
        }
    }

    private func forward(_ destination: SMPClient, sessionId: [UInt8], corrId: [UInt8], version: UInt16, key: [UInt8],
                         encrypted: [UInt8]) async -> BrokerMessage {
        // The client's transmission is authorized for this session only; a reconnected one is another.
        guard let session = destination.currentRelaySession, session.sessionId == sessionId else { return .err(.proxy(.noSession)) }
        guard session.version >= SMPVersion.sendingProxy else { return .err(.proxy(.broker(.transport(.version)))) }
        switch await destination.forwardTransmission(corrId: corrId, version: version, key: key, encryptedTransmission: encrypted) {
        case .success(let r):
            stats.proxyForwards.add(1)
            return .pres(encrypted: r)
        case .failure(let e):
            return .err(e.errorType)
        }
    }
}
