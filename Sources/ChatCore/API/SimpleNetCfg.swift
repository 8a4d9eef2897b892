import SMPClient

/// `/network <options>` (simplex-chat SetNetworkConfig, `netCfgP`): the terminal's short form of
/// the network settings. `socks=` comes first and is required; the rest is optional, in order.
public struct SimpleNetCfg: Sendable, Hashable {
    /// nil: `socks=off`; "on" is the default proxy (:9050); else the proxy's address.
    public var socksProxy: String?
    /// `always` or `onion` (SocksMode).
    public var socksMode = "always"
    /// JSON name of the HostMode (`public`, or `onionViaSocks` from "onion").
    public var hostMode = "public"
    public var requiredHostMode = false
    public var smpProxyMode: SMPProxyMode?
    public var smpProxyFallback: SMPProxyFallback?
    /// `all`, `preset` or `off` (SMPWebPortServers).
    public var smpWebPortServers = "preset"
    /// Seconds (`timeout=`).
    public var tcpTimeout: Int64?
    public var logTLSErrors = false

    public init() {}

    /// `netCfgP`, after "/network ".
    static func parse(_ s: inout CommandScanner) throws(CommandSyntaxError) -> SimpleNetCfg {
        var c = SimpleNetCfg()
        try s.expect("socks=")
        if s.take("off") { c.socksProxy = nil } else if s.take("on") { c.socksProxy = "on" } else { c.socksProxy = try s.token("SOCKS proxy address") }
        if s.take(" socks-mode=") {
            let m = try s.token("socks mode")
            guard m == "always" || m == "onion" else { throw CommandSyntaxError("Invalid Socks mode") }
            c.socksMode = m
        }
        if s.take(" host-mode=") {
            switch try s.token("host mode") {
            case "public": c.hostMode = "public"
            case "onion": c.hostMode = "onionViaSocks"
            case let m: throw CommandSyntaxError("Invalid host_mode: \(m)")
            }
        } else {
            // simplex-chat `defaultHostMode`: onion hosts only with a SOCKS proxy isolating by auth.
            c.hostMode = "public"
        }
        c.requiredHostMode = s.take(" required-host-mode")
        if s.take(" smp-proxy=") {
            let m = try s.token("SMP proxy mode")
            guard let v = SMPProxyMode(rawValue: m) else { throw CommandSyntaxError("Invalid SMP proxy mode: \(m)") }
            c.smpProxyMode = v
        }
        if s.take(" smp-proxy-fallback=") {
            let f = try s.token("SMP proxy fallback")
            guard let v = SMPProxyFallback(rawValue: f) else { throw CommandSyntaxError("Invalid SMP proxy fallback: \(f)") }
            c.smpProxyFallback = v
        }
        if s.take(" smp-web-port-servers=") {
            let w = try s.token("SMP web port servers")
            guard ["all", "preset", "off"].contains(w) else { throw CommandSyntaxError("Invalid SMP wep port setting") }
            c.smpWebPortServers = w
        } else if s.take(" smp-web-port") {
            c.smpWebPortServers = "all"
        }
        if s.take(" timeout=") { c.tcpTimeout = try s.decimal("timeout") }
        if s.take(" log=") { c.logTLSErrors = try s.onOff("log") }
        return c
    }

    var commandString: String {
        var s = "socks=" + (socksProxy ?? "off") + " socks-mode=" + socksMode + " host-mode=" + (hostMode == "public" ? "public" : "onion")
        if requiredHostMode { s += " required-host-mode" }
        if let m = smpProxyMode { s += " smp-proxy=" + m.rawValue }
        if let f = smpProxyFallback { s += " smp-proxy-fallback=" + f.rawValue }
        s += " smp-web-port-servers=" + smpWebPortServers
        if let t = tcpTimeout { s += " timeout=\(t)" }
        return s + " log=" + (logTLSErrors ? "on" : "off")
    }

    /// simplex-chat `updateNetworkConfig`: routing and timeouts only when given, the rest always.
    func applied(to cfg: [String: JSONValue]) -> [String: JSONValue] {
        var c = cfg
        if let m = smpProxyMode { c["smpProxyMode"] = .string(m.jsonName) }
        if let f = smpProxyFallback { c["smpProxyFallback"] = .string(f.jsonName) }
        if let t = tcpTimeout {
            let us = t * 1_000_000
            func nt(_ t: Int64) -> JSONValue { .object(["backgroundTimeout": .int(t * 3), "interactiveTimeout": .int(t)]) }
            c["tcpTimeout"] = nt(us)
            c["tcpConnectTimeout"] = nt(us * 3 / 2)
        }
        c["socksProxy"] = socksProxy.map { .string($0 == "on" ? ":9050" : $0) }
        c["socksMode"] = .string(socksMode)
        c["hostMode"] = .string(hostMode)
        c["requiredHostMode"] = .bool(requiredHostMode)
        c["smpWebPortServers"] = .string(smpWebPortServers)
        c["logTLSErrors"] = .bool(logTLSErrors)
        return c
    }
}
