import DoubleRatchet
import Foundation
import SimplexFoundation

/// A user message's AgentMsgEnvelope kept as its agent version and the prepared ratchet message:
/// sealing it gives the same bytes every time, so a retry after a restart resends exactly what
/// the first attempt sent, while the database holds ~300 bytes instead of 16 KB.
struct PreparedEnvelope {
    let agentVersion: UInt16
    let message: PreparedMessage

    /// `agentVersion(2)` then the prepared message's own storage form.
    func serialized() -> [UInt8] {
        var e = SMPEncoder()
        e.word16(agentVersion)
        e.raw(message.serialized())
        return e.bytes
    }

    init(agentVersion: UInt16, message: PreparedMessage) {
        self.agentVersion = agentVersion
        self.message = message
    }

    init(serialized bytes: [UInt8]) throws {
        var d = SMPDecoder(bytes)
        agentVersion = try d.word16()
        message = try PreparedMessage(serialized: d.rest())
    }

    /// The envelope `AgentMsgEnvelope.message` as the relay gets it.
    func envelope() throws -> [UInt8] {
        try AgentMsgEnvelope.message(agentVersion: agentVersion, encAgentMessage: message.sealed()).smpEncoded()
    }
}

/// What `storeSndMessage` keeps for a queued message.
enum StoredEnvelope {
    case envelope([UInt8])
    case prepared(PreparedEnvelope)
}

extension SndMessageRecord {
    /// The envelope to send: stored whole (handshake messages) or sealed now from its prepared form.
    func envelopeToSend() throws(AgentError) -> [UInt8]? {
        if let envelope { return [UInt8](envelope) }
        guard let prepared else { return nil }
        do { return try PreparedEnvelope(serialized: [UInt8](prepared)).envelope() } catch {
            throw .internalError("prepared message: \(error)")
        }
    }
}
