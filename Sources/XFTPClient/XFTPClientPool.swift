import NIOCore
import XFTPProtocol

/// One session per XFTP server, opened on first use and replaced when it has closed
/// (the agent's `getXFTPServerClient`).
public actor XFTPClientPool {
    private let config: XFTPClientConfig
    private let group: any EventLoopGroup
    private var sessions: [XFTPServerAddress: XFTPClientSession] = [:]

    public init(config: XFTPClientConfig = XFTPClientConfig(), group: any EventLoopGroup) {
        self.config = config
        self.group = group
    }

    public func session(_ server: XFTPServerAddress) async throws(XFTPClientError) -> XFTPClientSession {
        var key = server
        key.basicAuth = nil
        if let s = sessions[key], s.isActive { return s }
        let s = try await XFTPClientSession.connect(to: key, config: config, group: group)
        sessions[key] = s
        return s
    }

    public func closeAll() async {
        for s in sessions.values { await s.close() }
        sessions = [:]
    }
}
