import Foundation
import GRDB

/// Where a connection is in the procedure of agent-protocol.md.
enum ConnectionStatus: String, Codable, Sendable {
    /// Created (invitation or address) and waiting for the peer.
    case new
    /// Joined from a link: our confirmation is queued or sent, waiting for the peer's.
    case joined
    /// The initiator received the joiner's confirmation (CONF) and waits for allowConnection.
    case confirmed
    /// Both sides exchanged confirmations; HELLOs (standard procedure) still in flight.
    case allowed
    /// Duplex and established (CON was sent to the layer above).
    case active
    /// A contact address: it only receives requests.
    case contact
}

/// One duplex connection (or contact address) and its message counters and hash chain.
struct ConnectionRecord: AgentRecord {
    static let databaseTableName = "connections"

    var connId: String
    var connMode: String
    var initiator: Bool
    var status: ConnectionStatus
    var agentVersion: Int
    var pqSupport: Bool
    var userId: Int64
    var lastInternalMsgId: Int64
    var lastSndMsgId: Int64
    var lastSndMsgHash: Data
    var lastExternalSndMsgId: Int64
    var lastRcvMsgHash: Data
    var ownLink: String?
    var createdAt: Double
    /// simplexmq `ratchetSyncState` (migration m20261124_ratchet_sync).
    var ratchetSyncState: RatchetSyncState

    init(connId: String, mode: ConnectionMode, initiator: Bool, status: ConnectionStatus, pqSupport: Bool, userId: Int64, ownLink: String?,
         agentVersion: UInt16 = AgentVersion.current) {
        self.connId = connId
        self.connMode = mode == .invitation ? "invitation" : "contact"
        self.initiator = initiator
        self.status = status
        self.agentVersion = Int(agentVersion)
        self.pqSupport = pqSupport
        self.userId = userId
        self.lastInternalMsgId = 0
        self.lastSndMsgId = 0
        self.lastSndMsgHash = Data()
        self.lastExternalSndMsgId = 0
        self.lastRcvMsgHash = Data()
        self.ownLink = ownLink
        self.createdAt = Date().timeIntervalSince1970
        self.ratchetSyncState = .ok
    }
}
