/// Versions of the SMP client protocol (queue URIs and `SMPQueueInfo`) that we implement.
public enum SMPClientVersion {
    /// Version 1: one host in the binary server encoding.
    public static let initial: UInt16 = 1
    /// Version 2: several server hosts (`srvHostnamesSMPClientVersion`).
    public static let serverHostnames: UInt16 = 2
    /// Version 3: the sender can secure the queue with SKEY (`sndAuthKeySMPClientVersion`).
    public static let senderAuthKey: UInt16 = 3
    public static let current: UInt16 = 3
    public static let supported = VersionRange(initial...current)
}

/// Versions of the agent protocol (envelopes, links) that we implement: only the current one.
public enum AgentVersion {
    /// Version 5: post-quantum double ratchet, with smaller padded sizes when PQ is on.
    public static let pqDoubleRatchet: UInt16 = 5
    /// Version 6: reply queues secured with keys the sender provides.
    public static let senderAuthKey: UInt16 = 6
    /// Version 7: the ratchet is initialised when the confirmation is processed.
    public static let ratchetOnConfirmation: UInt16 = 7
    public static let current: UInt16 = 7
    public static let supported = VersionRange(current...current)
}
