/// Padded sizes of ratchet-encrypted agent payloads (simplexmq `e2eEncConnInfoLength`,
/// `e2eEncAgentMsgLength`), chosen so the whole SMP message stays within the per-queue padded
/// size. With PQ on they are smaller than simplexmq's because ML-KEM-768 keys and ciphertexts
/// are larger than sntrup761's (see protocol-notes.md).
public enum AgentMessageSize {
    /// Connection info in confirmations, PQ on (simplexmq 11106, less 149 bytes of larger KEM
    /// key and ciphertext in the e2e params and the ratchet header).
    public static let connInfoLengthPQ = 10957
    /// Connection info in confirmations, PQ off or agent version < 5 (as simplexmq).
    public static let connInfoLength = 14832
    /// Agent messages, PQ on (simplexmq 13618, less 74 bytes of larger ratchet header).
    public static let agentMsgLengthPQ = 13544
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
