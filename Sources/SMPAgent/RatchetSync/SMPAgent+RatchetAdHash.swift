import DoubleRatchet
import Foundation
import SimplexFoundation

extension SMPAgent {
    /// simplexmq `getConnectionRatchetAdHash`: SHA-256 of the ratchet's associated data (the two
    /// X3DH identity keys). Both sides of a connection get the same hash, and a re-synchronized
    /// ratchet a new one, so the chat derives the connection's security code from it.
    public func connectionRatchetAdHash(connId: String) throws(AgentError) -> [UInt8] {
        let exists = try store.read { db in try db.connectionRecord(connId) != nil }
        guard exists else { throw .connection(.notFound, connId) }
        let ratchet: PQRatchet
        do { ratchet = try loadRatchet(connId) } catch {
            // No ratchet yet (the connection is not confirmed): simplexmq's store error.
            if case .internalError = error { throw .store("SERatchetNotFound") }
            throw error
        }
        return CryptoHash.sha256(ratchet.associatedData)
    }
}
