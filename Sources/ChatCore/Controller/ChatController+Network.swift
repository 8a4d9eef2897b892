import SMPAgent
import SMPClient

/// Network settings (`/_network`, `/network`; simplex-chat APISetNetworkConfig and
/// APIGetNetworkConfig over simplexmq's NetworkConfig). Only private message routing
/// (`smpProxyMode`, `smpProxyFallback`) changes what the agent does; the other fields are kept
/// and given back as set (this client has no SOCKS proxy or onion hosts).
extension ChatController {
    /// simplexmq `defaultNetworkConfig` as its JSON encoding (`defaultJSON`), with the routing
    /// this controller was opened with.
    func defaultNetworkConfig() -> [String: JSONValue] {
        func timeout(_ background: Int64, _ interactive: Int64) -> JSONValue {
            .object(["backgroundTimeout": .int(background), "interactiveTimeout": .int(interactive)])
        }
        return [
            "socksMode": .string("always"), "hostMode": .string("onionViaSocks"), "requiredHostMode": .bool(false),
            "sessionMode": .string("session"),
            "smpProxyMode": .string(config.smpProxyMode.jsonName), "smpProxyFallback": .string(config.smpProxyFallback.jsonName),
            "smpWebPortServers": .string("preset"),
            "tcpConnectTimeout": timeout(45_000_000, 15_000_000), "tcpTimeout": timeout(30_000_000, 10_000_000),
            "tcpTimeoutPerKb": .int(5_000), "rcvConcurrency": .int(8),
            "tcpKeepAlive": .object(["keepIdle": .int(30), "keepIntvl": .int(15), "keepCnt": .int(4)]),
            "smpPingInterval": .int(600_000_000), "smpPingCount": .int(3), "logTLSErrors": .bool(false),
        ]
    }

    /// The settings in force: those last set, else the defaults.
    var currentNetworkConfig: [String: JSONValue] { networkConfig ?? defaultNetworkConfig() }

    /// The routing the current settings ask for.
    var proxyRouting: (mode: SMPProxyMode, fallback: SMPProxyFallback) {
        let cfg = currentNetworkConfig
        var mode = config.smpProxyMode, fallback = config.smpProxyFallback
        if case .string(let m)? = cfg["smpProxyMode"], let v = SMPProxyMode(jsonName: m) { mode = v }
        if case .string(let f)? = cfg["smpProxyFallback"], let v = SMPProxyFallback(jsonName: f) { fallback = v }
        return (mode, fallback)
    }

    /// `/_network <json>`: needs a user (`withUser'`), answers `cmdOk`. A routing value that is
    /// not one of the reference's is refused (its JSON parser fails the whole command).
    func setNetworkConfig(_ json: JSONValue) async throws(ChatError) -> ChatResponse {
        _ = try activeUser()
        guard case .object(let fields) = json else { throw .error(errorType: .commandError(message: "network config: not a JSON object")) }
        for (key, valid) in [("smpProxyMode", { SMPProxyMode(jsonName: $0) != nil }), ("smpProxyFallback", { SMPProxyFallback(jsonName: $0) != nil })]
            as [(String, (String) -> Bool)]
        {
            switch fields[key] {
            case nil: break
            case .string(let v)? where valid(v): break
            case let v?: throw .error(errorType: .commandError(message: "network config: bad \(key) \(v)"))
            }
        }
        networkConfig = currentNetworkConfig.merging(fields) { _, new in new }
        let routing = proxyRouting
        await agent?.setProxyRouting(mode: routing.mode, fallback: routing.fallback)
        return .cmdOk(user_: nil)
    }

    /// `/network`: the settings in force (CRNetworkConfig).
    func getNetworkConfig() throws(ChatError) -> ChatResponse {
        _ = try activeUser()
        return .networkConfig(networkConfig: .object(currentNetworkConfig))
    }

    /// `/network socks=off ...` (SetNetworkConfig): the short form applied over the settings in
    /// force (`updateNetworkConfig`), answered with the result. A SOCKS proxy is refused: this
    /// client cannot use one, and routing through it must not silently go direct instead.
    func setNetworkConfig(_ simple: SimpleNetCfg) async throws(ChatError) -> ChatResponse {
        _ = try activeUser()
        if simple.socksProxy != nil {
            throw .error(errorType: .commandError(message: "SOCKS5 proxies are not supported by this client: use socks=off"))
        }
        let cfg = simple.applied(to: currentNetworkConfig)
        _ = try await setNetworkConfig(.object(cfg))
        return .networkConfig(networkConfig: .object(cfg))
    }
}
