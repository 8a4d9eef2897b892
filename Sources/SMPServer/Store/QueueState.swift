import SMPProtocol

/// A message waiting in a queue. `body` is the sender's `smpEncMessage`; a quota marker has none.
public struct StoredMessage: Sendable {
    public let msgId: ID24
    /// Seconds since the Unix epoch when the relay accepted it.
    public let timestamp: Int64
    public let notification: Bool
    /// nil marks the "quota exceeded" message delivered after the queue drains.
    public let body: [UInt8]?
}

/// Notification credentials added by NKEY.
public struct NotifierCredentials: Sendable {
    public let notifierId: ID24
    public let key: QueueAuthKey
    /// Precomputed crypto_box key for NMSG metadata.
    public let rcvNtfDhSecret: Key32
}

/// A queue's short link data: the link ID (how LKEY/LGET find the queue) and the encrypted data.
public struct StoredLink: Sendable {
    /// Any length: a contact link's ID is chosen by the client (the reference sets no size).
    public let linkId: [UInt8]
    public var data: QueueLinkData
}

/// Everything the relay knows about one queue. Mutable state is guarded by the owning
/// `QueueStore`'s lock; nothing outside the store touches it.
final class QueueState: @unchecked Sendable {
    let recipientId: ID24
    let senderId: ID24
    /// The keys any recipient command may be signed with: one from NEW, several after RKEY
    /// (contact queues shared by several owners' clients); never empty.
    var recipientKeys: [QueueAuthKey]
    /// Precomputed crypto_box key shared with the recipient, for MSG bodies.
    let rcvDhSecret: Key32
    /// Messaging or contact queue; nil for queues created by v6-v8 clients (`queueMode` of the reference).
    let mode: QueueMode?
    var senderKey: QueueAuthKey?
    var notifier: NotifierCredentials?
    /// Short link data (NEW with link data, LSET); removed by LDEL and with the queue.
    var link: StoredLink?
    var suspended = false
    /// Set when the operator blocked the queue: commands get ERR BLOCKED (v12+, AUTH before).
    var blocked: BlockingInfo?
    var messages: [StoredMessage] = []
    /// Connection that receives this queue's messages (SUB, or NEW with subscribe).
    var subscriber: ServerClient?
    /// Connection that receives NMSG for this queue (NSUB).
    var notifierSubscriber: ServerClient?
    /// Message handed to the recipient and not yet acknowledged; only one at a time.
    var delivered: ID24?

    init(recipientId: ID24, senderId: ID24, recipientKey: QueueAuthKey, rcvDhSecret: Key32, mode: QueueMode?) {
        self.recipientId = recipientId
        self.senderId = senderId
        self.recipientKeys = [recipientKey]
        self.rcvDhSecret = rcvDhSecret
        self.mode = mode
    }

    /// `senderCanSecure`: only messaging queues may be secured by their sender (SKEY, LKEY).
    var senderCanSecure: Bool { mode == .messaging }

    /// `isContactQueue`: queues without a mode count as contact queues until secured.
    var isContactQueue: Bool {
        switch mode {
        case .messaging?: false
        case .contact?: true
        case nil: senderKey == nil
        }
    }

    /// `isSecuredMsgQueue`.
    var isSecuredMessagingQueue: Bool { mode == .contact ? false : senderKey != nil }

    /// True while a quota marker waits in the queue: no SEND is accepted until it drains.
    var quotaExceeded: Bool { messages.last.map { $0.body == nil } ?? false }
}
