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
    /// Transmissions waiting for the event loop, and whether a drain is already on its way.
    private let outbox = NIOLockedValueBox(Outbox())

    private struct Outbox {
        var pending: [Outgoing] = []
        var drainScheduled = false
    }

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

    /// Queues responses and messages for this connection and writes them on its event loop, in
    /// order, packed into as few blocks as they fit. Safe from any thread. What is queued before
    /// the loop gets to it shares blocks: a delivery made on another connection's loop rides with
    /// the OK of this connection's ACK (docs/protocol-notes.md, SMP, "Batching").
    func send(_ outgoing: [Outgoing]) {
        guard !outgoing.isEmpty else { return }
        let schedule = outbox.withLockedValue { box -> Bool in
            box.pending.append(contentsOf: outgoing)
            guard !box.drainScheduled else { return false }
            box.drainScheduled = true
            return true
        }
        // On this connection's loop, after the reads it is handling now: what they queue joins.
        if schedule { channel.eventLoop.execute { self.drain() } }
    }

    /// Writes and flushes what is queued, on the event loop.
    private func drain() {
        let pending = outbox.withLockedValue { box -> [Outgoing] in
            box.drainScheduled = false
            let taken = box.pending
            box.pending = []
            return taken
        }
        guard !pending.isEmpty else { return }
        do {
            let blocks = try TransmissionBatch.blocks(pending.map(encode))
            stats?.blocksSent.add(blocks.count)
            for block in blocks { channel.write(channel.allocator.buffer(bytes: block), promise: nil) }
            channel.flush()
        } catch {
            // Only our own responses are encoded here and all fit a block by construction.
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
}
