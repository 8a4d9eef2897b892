import NIOCore
import SimplexFoundation
import SMPProtocol

/// One client connection as the relay's store sees it: where to push MSG/END/NMSG, and which
/// queues it subscribes to (both sets are guarded by the `QueueStore` lock).
final class ServerClient: @unchecked Sendable {
    let channel: Channel
    let version: UInt16
    var subscriptions: Set<ID24> = []
    var notifierSubscriptions: Set<ID24> = []

    init(channel: Channel, version: UInt16) {
        self.channel = channel
        self.version = version
    }

    /// Writes transmissions as few blocks as possible. Safe from any thread; NIO hops to the
    /// channel's event loop.
    func send(_ transmissions: [RawTransmission]) {
        guard !transmissions.isEmpty else { return }
        do {
            let encoded = try transmissions.map { try $0.smpEncoded() }
            let blocks = try TransportBlock.batch(encoded)
            for (i, block) in blocks.enumerated() {
                let buffer = channel.allocator.buffer(bytes: block)
                if i == blocks.count - 1 {
                    channel.writeAndFlush(buffer, promise: nil)
                } else {
                    channel.write(buffer, promise: nil)
                }
            }
        } catch {
            // Only our own responses are encoded here and all fit a block by construction.
            channel.close(promise: nil)
        }
    }
}
