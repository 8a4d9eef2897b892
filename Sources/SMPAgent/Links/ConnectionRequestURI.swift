import DoubleRatchet
import SimplexFoundation

/// A full connection link (agent-protocol.md "Connection link", simplexmq `ConnectionRequestUri`):
/// `simplex:/invitation#/?v=7&smp=<queue URIs>&e2e=<ratchet keys>[&data=...]`, or the same after
/// `https://<host>`, or `/contact`. It carries everything needed to send the first message.
public struct ConnectionRequestURI: Sendable, Hashable {
    public let mode: ConnectionMode
    public let scheme: LinkScheme
    public let agentVersions: VersionRange
    /// One or more queues to send the confirmation (or contact request) to.
    public let queues: [SMPQueueURI]
    /// The creator's ratchet keys: always present for invitations, always nil for contacts
    /// (contact requests carry fresh keys in the `AgentInvitation` message instead).
    public let e2eParams: E2ERatchetParamsURI?
    /// Opaque application data (`data` parameter).
    public let clientData: String?

    /// Builds a link; `e2eParams` is required for invitations and dropped for contacts.
    public init(
        mode: ConnectionMode, scheme: LinkScheme = .simplex, agentVersions: VersionRange = AgentVersion.supported,
        queues: [SMPQueueURI], e2eParams: E2ERatchetParamsURI?, clientData: String? = nil
    ) throws(LinkError) {
        guard !queues.isEmpty else { throw .noQueues }
        if mode == .invitation, e2eParams == nil { throw .missingE2EParameters }
        self.mode = mode
        self.scheme = scheme
        self.agentVersions = agentVersions
        self.queues = queues
        self.e2eParams = mode == .invitation ? e2eParams : nil
        self.clientData = clientData
    }

    /// The same link with the `simplex:` scheme (simplexmq `simplexConnReqUri`).
    public var withSimplexScheme: ConnectionRequestURI {
        ConnectionRequestURI(unchecked: mode, .simplex, agentVersions, queues, e2eParams, clientData)
    }

    private init(
        unchecked mode: ConnectionMode, _ scheme: LinkScheme, _ versions: VersionRange, _ queues: [SMPQueueURI],
        _ e2e: E2ERatchetParamsURI?, _ data: String?
    ) {
        self.mode = mode
        self.scheme = scheme
        agentVersions = versions
        self.queues = queues
        e2eParams = e2e
        clientData = data
    }

    // MARK: text form

    /// Parses a full link as simplexmq's `connReqUriP` does: the scheme is read but the value
    /// gets `simplex:` (simplexmq `strP` overrides it), parameters may come in any order and
    /// unknown ones are ignored. Versions are not checked here but when the link is joined
    /// (`A_VERSION`), and a contact link's agent range is raised to start at 2
    /// (`adjustAgentVRange`), so old published addresses (`v=1`, `v=1-2`) still work.
    public init(parsing s: String) throws(LinkError) {
        try LinkSyntax.checkInput(s)
        let prefix = try LinkPrefix(Substring(s))
        guard let mode = ConnectionMode(rawValue: String(prefix.path)) else {
            throw .unknownLinkType(LinkSyntax.excerpt(prefix.path))
        }
        try self.init(prefix: prefix, mode: mode)
    }

    init(prefix: LinkPrefix, mode: ConnectionMode) throws(LinkError) {
        guard prefix.fragment.hasPrefix("/?") else { throw .malformed("expected \"#/?\" before the link parameters") }
        let query = try LinkQuery(parsing: prefix.fragment.dropFirst())

        let v = try query.requiredText("v")
        guard let parsedVersions = VersionRange(parsing: v) else {
            throw .invalidParameter(name: "v", reason: "not a version range: \(LinkSyntax.excerpt(v))")
        }
        let versions = mode == .contact ? Self.adjustedContactVersions(parsedVersions) : parsedVersions

        let smp = try query.requiredText("smp")
        if smp.isEmpty { throw .noQueues }
        var queues: [SMPQueueURI] = []
        for part in smp.split(separator: ";", omittingEmptySubsequences: false) {
            guard !part.isEmpty else { throw .invalidQueueURI("empty queue URI in \"smp\"") }
            do {
                queues.append(try SMPQueueURI(checkedText: part))
            } catch {
                if case .invalidQueueURI = error { throw error }
                throw .invalidQueueURI(error.description)
            }
        }

        var e2e: E2ERatchetParamsURI?
        if mode == .invitation {
            guard let text = try query.text("e2e") else { throw .missingE2EParameters }
            do {
                e2e = try E2ERatchetParamsURI(query: LinkQuery(parsing: text))
            } catch {
                throw .invalidParameter(name: "e2e", reason: error.description)
            }
        }
        let data = query.value("data").map { String(decoding: $0, as: UTF8.self) }
        self.init(unchecked: mode, .simplex, versions, queues, e2e, data)
    }

    /// simplexmq `adjustAgentVRange`: the minimum is raised to the oldest version it supports
    /// (2), and the maximum to at least that.
    static func adjustedContactVersions(_ vr: VersionRange) -> VersionRange {
        let lo = Swift.max(AgentVersion.duplexHandshake, vr.min)
        return VersionRange(min: lo, max: Swift.max(lo, vr.max)) ?? vr
    }

    /// The versions of this link that a joining agent can use (simplexmq `compatibleInvitationUri`
    /// / `compatibleContactUri`): the agent version, the first queue at a client version and,
    /// for invitations, the e2e params at an e2e version; nil when any range has nothing in
    /// common with ours (`A_VERSION`).
    public func compatibleVersions(
        agent: VersionRange = AgentVersion.supported, client: VersionRange = SMPClientVersion.supported,
        e2e: VersionRange = VersionRange(E2EVersion.supported)
    ) -> (agentVersion: UInt16, queue: SMPQueueInfo, e2eParams: E2ERatchetParams?)? {
        guard let av = agentVersions.highestCommon(with: agent), let q = try? queues[0].compatibleInfo(supported: client) else { return nil }
        guard mode == .invitation else { return (av, q, nil) }
        guard let params = try? e2eParams?.compatibleParams(supported: e2e) else { return nil }
        return (av, q, params)
    }

    /// simplexmq's `strEncode`: the query escaped with `QEscape`, queues joined with ";".
    public var uriString: String {
        var params: [(String, [UInt8])] = [
            ("v", Array(agentVersions.description.utf8)),
            ("smp", Array(queues.map(\.uriString).joined(separator: ";").utf8)),
        ]
        if let e2eParams { params.append(("e2e", Array(e2eParams.queryString.utf8))) }
        if let clientData { params.append(("data", Array(clientData.utf8))) }
        return scheme.prefix + "/" + mode.rawValue + "#/?" + LinkQuery.render(params)
    }
}

extension ConnectionRequestURI: CustomStringConvertible {
    public var description: String { uriString }
}
