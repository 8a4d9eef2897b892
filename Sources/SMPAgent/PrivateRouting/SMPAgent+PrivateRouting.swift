import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport

/// A PRXY session with one destination through one proxy, made once and shared by every command
/// that needs it while it is being made (simplexmq's `ProxiedRelayVar`).
typealias ProxiedRelaySession = Task<Result<ProxiedRelay, AgentError>, Never>

/// Private message routing (simplexmq Agent/Client.hs `sendOrProxySMPCommand`,
/// `getSMPProxyClient`): sender commands to a relay travel through another relay, the proxy,
/// so the destination sees the proxy's address and session, never ours.
extension SMPAgent {
    /// Changes the routing of later commands (`/_network`, APISetNetworkConfig).
    public func setProxyRouting(mode: SMPProxyMode, fallback: SMPProxyFallback) {
        proxyRouting = (mode, fallback)
    }

    public var proxyRoutingConfig: (mode: SMPProxyMode, fallback: SMPProxyFallback) { proxyRouting }

    /// The proxy that commands to `destination` go through now, if a session is kept for it.
    public func proxyServer(for destination: String) -> String? { proxyOfDestination[destination] }

    /// simplexmq `shouldUseProxy`. The IP address is never "protected" here: this agent has no
    /// SOCKS proxy or onion hosts, so `unprotected` means `unknown`.
    func shouldUseProxy(_ destination: String) -> Bool {
        switch proxyRouting.mode {
        case .always: true
        case .unknown, .unprotected: !isKnownServer(destination)
        case .never: false
        }
    }

    /// simplexmq `directAllowed`: with no protected IP address, only `allow` permits it.
    func directAllowed(_ destination: String) -> Bool {
        proxyRouting.fallback == .allow
    }

    /// A relay is known when one of its hosts is a host of the user's servers (`knownHosts`).
    func isKnownServer(_ destination: String) -> Bool {
        guard let d = try? SMPServerAddress(parsing: destination) else { return false }
        let known = Set((config.servers + (config.proxyServers ?? [])).flatMap(\.hosts))
        return d.hosts.contains(where: known.contains)
    }

    /// simplexmq `getNextServer proxySrvs [destSrv]`: a random proxy among the user's servers,
    /// preferring those that share no host with the destination.
    func chooseProxy(for destination: String) throws(AgentError) -> String {
        let candidates = config.proxyServers ?? config.servers
        guard !candidates.isEmpty else { throw .command(.prohibited, "no SMP servers configured") }
        let destHosts = Set((try? SMPServerAddress(parsing: destination))?.hosts ?? [])
        let others = candidates.filter { Set($0.hosts).isDisjoint(with: destHosts) }
        return (others.isEmpty ? candidates : others).randomElement()!.description
    }

    /// Runs one sender command to `destination` through a proxy or directly, as the routing
    /// says (simplexmq `sendOrProxySMPCommand`); returns the proxy used, nil when direct.
    /// A proxied attempt falls back to a direct one only after a host or version failure
    /// (`serverHostError`) and when the fallback allows it.
    func sendOrProxy<T>(_ destination: String,
                        viaProxy: (SMPClient, ProxiedRelay) async throws(SMPClientError) -> Result<T, ProxyClientError>,
                        direct: (SMPClient) async throws(SMPClientError) -> T) async throws(AgentError) -> (proxy: String?, value: T) {
        if shouldUseProxy(destination) {
            do {
                let (p, v) = try await sendViaProxy(destination, proxy: nil, viaProxy)
                return (p, v)
            } catch {
                guard error.isServerHostError, directAllowed(destination) else { throw error }
                logger.info("private routing to \(destination) failed (\(error)), sending directly")
            }
        }
        return (nil, try await smp(destination, direct))
    }

    /// After `PROXY NO_SESSION` (the proxy lost its connection to the destination) the session is
    /// dropped and made again once through the same proxy, so an interactive command that is
    /// not retried does not fail (as the reference).
    private func sendViaProxy<T>(_ destination: String, proxy preferred: String?,
                                 _ viaProxy: (SMPClient, ProxiedRelay) async throws(SMPClientError) -> Result<T, ProxyClientError>)
        async throws(AgentError) -> (String, T)
    {
        let (proxy, relay, session) = try await proxiedRelay(for: destination, proxy: preferred)
        let c = try client(proxy)
        let r: Result<T, ProxyClientError>
        do { r = try await viaProxy(c, relay) } catch { throw AgentError.from(error, server: proxy) }
        switch r {
        case .success(let v):
            return (proxy, v)
        case .failure(let e):
            if case .protocolError(.proxy(.noSession)) = e {
                if proxiedRelays[proxy]?[destination] == session { proxiedRelays[proxy]?[destination] = nil }
                if preferred == nil { return try await sendViaProxy(destination, proxy: proxy, viaProxy) }
            }
            throw .proxy(proxyServer: proxy, relayServer: destination, e)
        }
    }

    /// The proxy kept for `destination` (or a new choice) and its PRXY session, made if needed
    /// (simplexmq `getSMPProxyClient`). A failed PRXY is forgotten, with the proxy choice, unless
    /// it is a host or version failure: that one stays until the proxy disconnects, so later
    /// commands fall back at once.
    func proxiedRelay(for destination: String, proxy preferred: String?) async throws(AgentError)
        -> (proxy: String, relay: ProxiedRelay, session: ProxiedRelaySession)
    {
        let proxy: String
        if let p = proxyOfDestination[destination] {
            proxy = p
        } else {
            if let preferred { proxy = preferred } else { proxy = try chooseProxy(for: destination) }
            proxyOfDestination[destination] = proxy
        }
        let session: ProxiedRelaySession
        if let s = proxiedRelays[proxy]?[destination] {
            session = s
        } else {
            let c = try client(proxy)
            let dest: ProtocolServer
            do {
                let a = try SMPServerAddress(parsing: destination)
                dest = ProtocolServer(hosts: a.hosts, port: a.port.map(String.init) ?? "", keyHash: a.keyHash)
            } catch {
                throw .internalError("bad destination server \(destination)")
            }
            let auth = config.basicAuth
            session = Task {
                do throws(SMPClientError) { return .success(try await c.connectProxiedRelay(dest, basicAuth: auth)) } catch {
                    return .failure(AgentError.from(error, server: proxy))
                }
            }
            proxiedRelays[proxy, default: [:]][destination] = session
        }
        switch await session.value {
        case .success(let relay):
            return (proxy, relay, session)
        case .failure(let e):
            if !e.isServerHostError, proxiedRelays[proxy]?[destination] == session {
                proxiedRelays[proxy]?[destination] = nil
                if proxyOfDestination[destination] == proxy { proxyOfDestination[destination] = nil }
            }
            throw e
        }
    }

    /// The proxy's connection closed: its sessions with destinations are gone, and destinations
    /// that used it choose a proxy again (simplexmq `smpClientDisconnected`).
    func proxyDisconnected(_ server: String) {
        proxiedRelays[server] = nil
        proxyOfDestination = proxyOfDestination.filter { $0.value != server }
    }

    /// The SMP version our sender commands to `server` will be encoded in: the proxied session's
    /// when they go through a proxy (asking the destination directly would reveal us to it),
    /// otherwise the direct connection's. Nil when it cannot be learned now.
    func senderVersion(_ server: String) async -> UInt16? {
        if shouldUseProxy(server) {
            do {
                return try await proxiedRelay(for: server, proxy: nil).relay.version
            } catch {
                guard error.isServerHostError, directAllowed(server) else { return nil }
            }
        }
        return try? await smp(server) { c throws(SMPClientError) in try await c.negotiatedVersion() }
    }

    /// SEND directly or through a proxy (simplexmq `sendOrProxySMPMessage`).
    @discardableResult
    func sendOrProxySMPMessage(server: String, senderId: [UInt8], key: PrivateAuthKey?, notification: Bool,
                               body: [UInt8]) async throws(AgentError) -> String? {
        try await sendOrProxy(server, viaProxy: { c, relay throws(SMPClientError) in
            try await c.proxySend(relay, senderId: senderId, key: key, notification: notification, body: body)
        }, direct: { c throws(SMPClientError) in
            try await c.send(senderId: senderId, key: key, notification: notification, body: body)
        }).proxy
    }

    /// SKEY directly or through a proxy (simplexmq `secureSndQueue`).
    func secureSndQueue(server: String, senderId: [UInt8], key: PrivateAuthKey) async throws(AgentError) {
        _ = try await sendOrProxy(server, viaProxy: { c, relay throws(SMPClientError) in
            try await c.proxySenderSecure(relay, senderId: senderId, key: key)
        }, direct: { c throws(SMPClientError) in
            try await c.senderSecure(senderId: senderId, key: key)
        })
    }
}
