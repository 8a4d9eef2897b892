/// Padded sizes of ratchet-encrypted agent payloads (simplexmq `e2eEncConnInfoLength`,
/// `e2eEncAgentMsgLength`), chosen so the whole SMP message stays within the per-queue padded
/// size; the PQ sizes leave room for sntrup761 keys and ciphertexts, as simplexmq's.
public enum AgentMessageSize {
    /// Connection info in confirmations, PQ on (as simplexmq).
    public static let connInfoLengthPQ = 11106
    /// Connection info in confirmations, PQ off or agent version < 5 (as simplexmq).
    public static let connInfoLength = 14832
    /// Agent messages, PQ on (as simplexmq).
    public static let agentMsgLengthPQ = 13618
    /// Agent messages, PQ off or agent version < 5 (as simplexmq).
    public static let agentMsgLength = 15840

    /// Padded length for the ratchet-encrypted `AgentMessage` in a confirmation.
    public static func e2eEncConnInfoLength(version: UInt16 = AgentVersion.current, pq: Bool) -> Int {
        pq && version >= AgentVersion.pqDoubleRatchet ? connInfoLengthPQ : connInfoLength
    }

    /// Padded length for the ratchet-encrypted `AgentMessage` in an `'M'` envelope.
    public static func e2eEncAgentMsgLength(version: UInt16 = AgentVersion.current, pq: Bool) -> Int {
        pq && version >= AgentVersion.pqDoubleRatchet ? agentMsgLengthPQ : agentMsgLength
    }
}
