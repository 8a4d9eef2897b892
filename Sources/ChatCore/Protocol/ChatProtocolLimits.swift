import SMPAgent

/// Size limits of chat protocol bodies inside agent messages (simplex-chat.md "Compressed format",
/// Protocol.hs `maxEncodedMsgLength` and friends). Sizes are in bytes of UTF-8 JSON.
public enum ChatProtocolLimits {
    /// The largest JSON message (or batch) we send in one agent message: the spec's 15,610, which
    /// leaves room for the `x.grp.msg.forward` wrapper when a group host relays it.
    public static let maxEncodedMsgLength = 15_610
    /// simplex-chat's current constant (15,602: 8 bytes less than the spec, for block encryption).
    /// Pass it as `maxSize` to be byte-for-byte as conservative as the Haskell client.
    public static let maxEncodedMsgLengthConservative = 15_602
    /// JSON messages sent in connection info (confirmations: `x.info`, `x.contact`), which the
    /// agent pads to a smaller envelope (Protocol.hs `maxEncodedInfoLength`).
    public static let maxEncodedInfoLength = 14_694
    /// Compressed bodies on PQ connections (Protocol.hs `maxCompressedMsgLength`), for when
    /// compression is added.
    public static let maxCompressedMsgLength = 13_380
    /// The largest body we try to parse; also simplex-chat's limit on a decompressed body.
    public static let maxDecodedBodyLength = 65_536
    /// Deepest JSON nesting we accept. Real messages nest about 10 levels (a forwarded message in
    /// a group event); the cap keeps a hostile peer from exhausting the stack.
    public static let maxJSONDepth = 64
}

/// Chat protocol versions (Protocol.hs version history) that change the message format. Peers
/// send their supported range in `v`; a message without `v` is from version 1.
public enum ChatProtocolVersion {
    /// The version assumed for messages without `v`.
    public static let initial: UInt16 = 1
    /// Batches (JSON arrays) in group connections.
    public static let batchSend: UInt16 = 5
    /// Compressed (`X`) bodies and PQ encryption.
    public static let pqEncryptionCompression: UInt16 = 8
    /// Batches in direct connections too.
    public static let batchSend2: UInt16 = 9
    /// Content reports (`report` message content).
    public static let contentReports: UInt16 = 12
    /// Message scopes (`scope` in x.msg.*).
    public static let groupKnocking: UInt16 = 15
    /// Short link data in links.
    public static let shortLinkData: UInt16 = 16

    /// The range assumed for a message without `v`.
    public static let initialRange = VersionRange(initial)
}
