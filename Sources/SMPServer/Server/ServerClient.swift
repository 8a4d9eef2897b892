import NIOConcurrencyHelpers
import NIOCore
import SimplexFoundation
import SMPProtocol

/// A response or event on its way to a client: encoded in the client's version when written.
struct Outgoing: Sendable {
    let corrId: [UInt8]
    let entityId: [UInt8]
    let message: BrokerMessage

    /// A server event (no corrId).
    static func event(_ entityId: [UInt8], _ m: BrokerMessage) -> Outgoing { Outgoing(corrId: [], entityId: entityId, message: m) }
}

/// One client connection as the relay's store sees it: where to push MSG/END/NMSG, and which
/// queues it subscribes to (these sets are guarded by the `QueueStore` lock).
final class ServerClient: @unchecked Sendable {
    let channel: Channel
    let params: TransmissionParams
    /// Where the blocks written are counted.
    private let stats: ServerStats?
    var version: UInt16 { params.version }
    var subscriptions: Set<ID24> = []
    var notifierSubscriptions: Set<ID24> = []
    /// Queues this connection read with GET, and the message last handed out for each
    /// (the reference's `ProhibitSub` subscriptions: such a queue cannot be SUBscribed here).
    var getDelivered: [ID24: ID24?] = [:]

    /// PRXY/PFWD of this client still waiting on a destination, and whether reading from the
    /// client is paused because there are too many (the reference blocks the client's command
    /// thread at `serverClientConcurrency`, which stops reading from its socket).
    private let proxyWork = NIOLockedValueBox((inFlight: 0, paused: false))

    init(channel: Channel, params: TransmissionParams, stats: ServerStats? = nil) {
        self.channel = channel
        self.params = params
        self.stats = stats
    }

    convenience init(channel: Channel, sessionId: [UInt8], version: UInt16) {
        self.init(channel: channel, params: TransmissionParams(sessionId: sessionId, version: version))
    }

    /// The transmission bytes (`tEncode` with no authorization) of a response in this client's version.
    func encode(_ o: Outgoing) throws -> [UInt8] {
        let body = try o.message.smpEncoded(version: params.version)
        return try RawTransmission(corrId: o.corrId, entityId: o.entityId, body: body).encoded(params)
    }

    /// Writes responses batched into as few blocks as possible. Safe from any thread; NIO hops
    /// to the channel's event loop. `flush: false` leaves the flush to the caller (the connection's
    /// own read burst, which flushes once at its end).
    func send(_ outgoing: [Outgoing], flush: Bool = true) {
        guard !outgoing.isEmpty else { return }
        do {
            write(try TransmissionBatch.blocks(outgoing.map(encode)), flush: flush)
        } catch {
            // Only our own responses are encoded here and all fit a block by construction.
            channel.close(promise: nil)
        }
    }

    /// Each message in a block of its own (the reference's `sendMsg` thread), so deliveries
    /// interleave with other responses.
    func sendSeparately(_ outgoing: [Outgoing], flush: Bool = true) {
        guard !outgoing.isEmpty else { return }
        do {
            write(try outgoing.map { o in
                let t = try encode(o)
                return try Padding.pad([1] + Self.large(t), to: TransportBlock.size)
            }, flush: flush)
        } catch {
            channel.close(promise: nil)
        }
    }

    /// A proxied command starts; at `limit` in flight, stop reading further commands.
    func proxyStarted(limit: Int) {
        let pause = proxyWork.withLockedValue { w -> Bool in
            w.inFlight += 1
            guard w.inFlight >= limit, !w.paused else { return false }
            w.paused = true
            return true
        }
        if pause { channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in } }
    }

    /// A proxied command was answered; below `limit` again, resume reading.
    func proxyFinished(limit: Int) {
        let resume = proxyWork.withLockedValue { w -> Bool in
            w.inFlight -= 1
            guard w.paused, w.inFlight < limit else { return false }
            w.paused = false
            return true
        }
        if resume {
            channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { [channel] _ in channel.read() }
        }
    }

    private static func large(_ t: [UInt8]) -> [UInt8] { [UInt8(truncatingIfNeeded: t.count >> 8), UInt8(truncatingIfNeeded: t.count)] + t }

    private func write(_ blocks: [[UInt8]], flush: Bool) {
        stats?.blocksSent.add(blocks.count)
        for (i, block) in blocks.enumerated() {
            let buffer = channel.allocator.buffer(bytes: block)
            if flush, i == blocks.count - 1 {
                channel.writeAndFlush(buffer, promise: nil)
            } else {
                channel.write(buffer, promise: nil)
            }
        }
    }
}
