/// Versions of the SMP client protocol (queue URIs and `SMPQueueInfo`), simplexmq Protocol.hs.
public enum SMPClientVersion {
    /// Version 1: one host in the binary server encoding (`initialSMPClientVersion`).
    public static let initial: UInt16 = 1
    /// Version 2: several server hosts (`srvHostnamesSMPClientVersion`).
    public static let serverHostnames: UInt16 = 2
    /// Version 3: the sender can secure the queue with SKEY (`sndAuthKeySMPClientVersion`).
    public static let senderAuthKey: UInt16 = 3
    /// Version 4: queue modes `q=m|c` / "M"|"C" and short links (`shortLinksSMPClientVersion`).
    public static let shortLinks: UInt16 = 4
    public static let current: UInt16 = 4
    /// `supportedSMPClientVRange`: what our links and handshakes advertise (1-4).
    public static let supported = VersionRange(initial...current)
}

/// Versions of the agent protocol (envelopes, links), simplexmq Agent/Protocol.hs.
public enum AgentVersion {
    /// Version 2: duplex handshake, the minimum simplexmq supports (`duplexHandshakeSMPAgentVersion`).
    public static let duplexHandshake: UInt16 = 2
    /// Version 3: ratchet re-synchronization.
    public static let ratchetSync: UInt16 = 3
    /// Version 4: delivery receipts.
    public static let deliveryReceipts: UInt16 = 4
    /// Version 5: post-quantum double ratchet, with smaller padded sizes when PQ is on.
    public static let pqDoubleRatchet: UInt16 = 5
    /// Version 6: reply queues secured with keys the sender provides.
    public static let senderAuthKey: UInt16 = 6
    /// Version 7: the ratchet is initialised when the confirmation is processed.
    public static let ratchetOnConfirmation: UInt16 = 7
    public static let current: UInt16 = 7
    /// `supportedSMPAgentVRange` (2-7): what our links and short link data advertise, so they
    /// are byte for byte the reference's, and the versions whose behaviour the agent implements.
    public static let supported = VersionRange(duplexHandshake...current)
}
