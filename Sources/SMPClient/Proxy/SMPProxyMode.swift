/// When commands to a relay go through a proxy relay (simplexmq `SMPProxyMode` of `NetworkConfig`).
/// Raw values are the reference's text form (`strEncode`: CLI `--smp-proxy`, `/network smp-proxy=`).
public enum SMPProxyMode: String, Sendable, Hashable, CaseIterable {
    /// Every sender command goes through a proxy.
    case always
    /// Only for relays that are not among the user's own servers.
    case unknown
    /// As `unknown`, unless the IP address is protected (SOCKS proxy or onion host).
    case unprotected
    /// Never: every command goes directly (the reference's default in `defaultNetworkConfig`).
    case never

    /// The JSON form (`enumJSON $ dropPrefix "SPM"`), the same words.
    public var jsonName: String { rawValue }
    public init?(jsonName: String) { self.init(rawValue: jsonName) }
}

/// Whether a command may go directly when the proxy or the destination does not support private
/// routing (simplexmq `SMPProxyFallback`). Raw values are the text form; JSON uses `jsonName`.
public enum SMPProxyFallback: String, Sendable, Hashable, CaseIterable {
    /// Yes (`SPFAllow`, "yes", JSON "allow"): the reference's default.
    case allow = "yes"
    /// Only when the IP address is protected (`SPFAllowProtected`, "protected", JSON "allowProtected").
    case allowProtected = "protected"
    /// Never (`SPFProhibit`, "no", JSON "prohibit").
    case prohibit = "no"

    /// The JSON form (`enumJSON $ dropPrefix "SPF"`).
    public var jsonName: String {
        switch self {
        case .allow: "allow"
        case .allowProtected: "allowProtected"
        case .prohibit: "prohibit"
        }
    }

    public init?(jsonName: String) {
        guard let v = Self.allCases.first(where: { $0.jsonName == jsonName }) else { return nil }
        self = v
    }
}
