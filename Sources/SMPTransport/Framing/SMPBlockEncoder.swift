import NIOCore
import SMPProtocol
import SimplexFoundation

/// Outbound side of the block framing: passes `ByteBuffer` blocks through unchanged (no copy)
/// and fails the write with `TransportError.block` if a buffer is not exactly 16384 bytes, so a
/// bug above can never put a short or long block on the wire and desynchronise the stream.
public final class SMPBlockEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    public init() {}

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let block = unwrapOutboundIn(data)
        guard block.readableBytes == TransportBlock.size else {
            promise?.fail(TransportError.block)
            return
        }
        context.write(wrapOutboundOut(block), promise: promise)
    }
}
