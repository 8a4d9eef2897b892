import SMPAgent

/// Size limits of chat protocol bodies inside agent messages (simplex-chat Protocol.hs
/// `maxEncodedMsgLength` and friends). Sizes are in bytes of UTF-8 JSON.
public enum ChatProtocolLimits {
    /// The largest JSON message (or batch) sent in one agent message: 15,780 (the agent's file
    /// chunk size) less the x.grp.msg.forward wrapper a host may add, rounded down for block
    /// encryption (Protocol.hs `maxEncodedMsgLength`). The spec's prose says 15,610; the code wins.
    public static let maxEncodedMsgLength = 15_602
    /// A body longer than this is compressed on post-quantum connections of chat version 8+, and
    /// must fit in it once compressed: PQ ratchet headers take 2,222 bytes more of the agent
    /// message (Protocol.hs `maxCompressedMsgLength`).
    public static let maxCompressedMsgLength = 13_380
    /// JSON messages sent in connection info (confirmations: `x.info`, `x.contact`), which the
    /// agent pads to a smaller envelope (Protocol.hs `maxEncodedInfoLength`).
    public static let maxEncodedInfoLength = 14_694
    /// Connection info on post-quantum connections: compressed above this, and must fit in it
    /// (Protocol.hs `maxCompressedInfoLength`).
    public static let maxCompressedInfoLength = 10_968
    /// The most one compressed part may decompress to (Protocol.hs `maxDecompressedMsgLength`).
    public static let maxDecompressedMsgLength = 65_536
    /// The largest body we try to parse (the agent never delivers more than this).
    public static let maxDecodedBodyLength = 65_536
    /// Deepest JSON nesting we accept. Real messages nest about 10 levels (a forwarded message in
    /// a group event); the cap keeps a hostile peer from exhausting the stack.
    public static let maxJSONDepth = 64
}

/// Chat protocol versions (Protocol.hs "Chat version history"). Peers send their supported range
/// in `v`; a message without `v` is from version 1. Each constant is the first version with the
/// feature; what a message may use is decided by the version negotiated on its connection.
public enum ChatProtocolVersion {
    /// The version assumed for messages without `v`.
    public static let initial: UInt16 = 1
    /// Members connect to each other without direct contacts (x.grp.direct.inv only).
    public static let groupDirectInv: UInt16 = 2
    /// Joining through a group link without a contact with the host.
    public static let groupFastLinkJoin: UInt16 = 3
    /// Hosts forward messages between members not yet connected (x.grp.msg.forward).
    public static let groupForward: UInt16 = 4
    /// Batches (JSON arrays) in group connections.
    public static let batchSend: UInt16 = 5
    /// The group welcome message is sent in the history new members receive.
    public static let groupHistoryIncludeWelcome: UInt16 = 6
    /// Members send profile updates to groups (x.info).
    public static let memberProfileUpdate: UInt16 = 7
    /// Compressed (`X`) bodies and PQ encryption.
    public static let pqEncryptionCompression: UInt16 = 8
    /// Batches in direct connections too, and hosts forward batched messages.
    public static let batchSend2: UInt16 = 9
    /// Business chats when joining contact addresses.
    public static let businessChats: UInt16 = 10
    /// Preferences updates in business chats (x.grp.prefs).
    public static let businessChatPrefs: UInt16 = 11
    /// Content reports (`report` message content).
    public static let contentReports: UInt16 = 12
    /// Group join rejection (x.grp.link.reject).
    public static let groupJoinReject: UInt16 = 14
    /// Message scopes (`scope` in x.msg.*).
    public static let groupKnocking: UInt16 = 15
    /// Short link data in links.
    public static let shortLinkData: UInt16 = 16
    /// simplex-chat's `relayWebCapVersion`: the first version a p2p peer is sent binary bodies
    /// (`=` batches with `/` signed and `F` forwarded elements); they are parsed from 17. Our range
    /// stays below it, so peers send us JSON only (see docs/protocol-notes.md).
    public static let binaryBodies: UInt16 = 18

    /// The chat versions this core implements and advertises by default (`Config.chatVRange`).
    public static let supportedRange = VersionRange(initial...shortLinkData)

    /// The range assumed for a message without `v`.
    public static let initialRange = VersionRange(initial)
}
