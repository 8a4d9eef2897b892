import NIOConcurrencyHelpers
import NIOCore
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport

/// The relay's SMP clients to destination relays when it acts as a proxy (the reference's
/// `ProxyAgent`): one connection per destination, shared by every client that asks for it (so
/// the destination cannot tell senders apart), found again by its session ID for PFWD, and
/// dropped when it disconnects (clients then get NO_SESSION and ask with PRXY again).
final class SMPProxyAgent: Sendable {
    private let group: any EventLoopGroup
    private let clientConfig: SMPClientConfig
    private let clients = NIOLockedValueBox<[ProtocolServer: SMPClient]>([:])
    /// The last connection failure per destination and until when it is answered without trying
    /// again (`persistErrorInterval`), so a dead relay is not dialled for every PRXY.
    private let failures = NIOLockedValueBox<[ProtocolServer: (error: ErrorType, until: ContinuousClock.Instant)]>([:])
    private let persistErrorInterval: Double

    init(group: any EventLoopGroup, config: SMPServerConfig) {
        self.group = group
        var c = SMPClientConfig()
        // `supportedProxyClientSMPRelayVRange`, the `proxyServer` handshake flag, no keep-alive
        // needs beyond the defaults.
        c.versions = SMPVersion.supported
        c.proxyServer = true
        c.connectTimeout = config.proxyConnectTimeout
        c.commandTimeout = config.proxyCommandTimeout
        clientConfig = c
        persistErrorInterval = config.proxyPersistErrorInterval
    }

    /// PRXY: the session with `server`, connecting if there is none. Failures are the reference's
    /// `smpProxyError` of the connection error.
    func session(with server: ProtocolServer) async -> Result<RelaySession, ErrorType> {
        let now = ContinuousClock.now
        let remembered = failures.withLockedValue { f -> ErrorType? in
            guard let last = f[server] else { return nil }
            if last.until > now { return last.error }
            f[server] = nil
            return nil
        }
        if let remembered { return .failure(remembered) }
        let client: SMPClient
        switch self.client(for: server) {
        case .success(let c): client = c
        case .failure(let e): return .failure(remember(e, for: server))
        }
        do {
            return .success(try await client.relaySession())
        } catch {
            drop(server, client)
            return .failure(remember(error.proxyError, for: server))
        }
    }

    private func remember(_ e: ErrorType, for server: ProtocolServer) -> ErrorType {
        if persistErrorInterval > 0 {
            let until = ContinuousClock.now + .milliseconds(Int64(persistErrorInterval * 1000))
            failures.withLockedValue { $0[server] = (e, until) }
        }
        return e
    }

    /// PFWD: the live connection whose session ID the client got in PKEY.
    func client(sessionId: [UInt8]) -> SMPClient? {
        let all = clients.withLockedValue { Array($0.values) }
        return all.first { $0.currentSessionId == sessionId }
    }

    func shutdown() async {
        let all = clients.withLockedValue { c -> [SMPClient] in
            defer { c.removeAll() }
            return Array(c.values)
        }
        for c in all { await c.close() }
    }

    private func client(for server: ProtocolServer) -> Result<SMPClient, ErrorType> {
        let port: Int?
        if server.port.isEmpty {
            port = nil
        } else if let p = Int(server.port), (1...65535).contains(p) {
            port = p
        } else {
            // A port the reference's client cannot connect to either.
            return .failure(.proxy(.broker(.network)))
        }
        guard let address = try? SMPServerAddress(keyHash: server.keyHash, hosts: server.hosts, port: port) else {
            return .failure(.proxy(.broker(.network)))
        }
        let (client, created) = clients.withLockedValue { c -> (SMPClient, Bool) in
            if let existing = c[server] { return (existing, false) }
            let new = SMPClient(server: address, config: clientConfig, group: group)
            c[server] = new
            return (new, true)
        }
        if created { watch(server, client) }
        return .success(client)
    }

    /// A proxy makes no subscriptions, so a dropped connection is simply forgotten instead of
    /// being re-established.
    private func watch(_ server: ProtocolServer, _ client: SMPClient) {
        Task { [weak self] in
            for await event in client.events {
                if case .disconnected = event {
                    self?.drop(server, client)
                    return
                }
            }
        }
    }

    private func drop(_ server: ProtocolServer, _ client: SMPClient) {
        let removed = clients.withLockedValue { c -> Bool in
            guard c[server] === client else { return false }
            c[server] = nil
            return true
        }
        if removed { Task { await client.close() } }
    }
}
