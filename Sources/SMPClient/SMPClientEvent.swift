import SMPProtocol

/// A message a subscribed queue received, decrypted from the relay's crypto_box layer.
public struct ReceivedMessage: Sendable, Equatable {
    public let recipientId: [UInt8]
    public let msgId: [UInt8]
    /// Seconds since the epoch when the relay accepted it.
    public let timestamp: Int64
    public let flags: MsgFlags
    /// The sender's `smpEncMessage`, or nil for the relay's "quota exceeded" marker.
    public let body: [UInt8]?
}

/// Things the relay or the connection tell the client without being asked.
public enum SMPClientEvent: Sendable {
    case message(ReceivedMessage)
    /// A MSG that could not be decrypted (it is not acknowledged automatically).
    case undecryptable(recipientId: [UInt8], msgId: [UInt8], SMPClientError)
    /// Another connection took over this queue's subscription.
    case end(recipientId: [UInt8])
    case notification(notifierId: [UInt8], nonce: [UInt8], encryptedMeta: [UInt8])
    /// The connection dropped; the client is reconnecting.
    case disconnected
    /// Connected (again); `resubscribeFailures` lists queues whose SUB failed.
    case connected(reconnect: Bool, resubscribeFailures: [([UInt8], SMPClientError)])
}
