import NIOCore
import SimplexFoundation

/// Cuts the decrypted TLS byte stream into SMP transport blocks of exactly 16384 bytes; each
/// block leaves as one `ByteBuffer`. Install it with `SMPBlockDecoder.handler()` so the amount
/// of buffered, not-yet-complete data stays bounded.
public struct SMPBlockDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// Bound on bytes kept waiting for a block to complete. Blocks are cut as soon as they are
    /// complete, so at most one partial block (< 16384 bytes) is ever left over after a read; the
    /// bound is the backstop that fails the connection (`ByteToMessageDecoderError.PayloadTooLargeError`)
    /// should that ever not hold.
    public static let defaultMaximumBufferSize = TransportBlock.size

    public init() {}

    /// The decoder wrapped in its `ByteToMessageHandler`, with the buffer bound applied.
    public static func handler(maximumBufferSize: Int = defaultMaximumBufferSize) -> ByteToMessageHandler<SMPBlockDecoder> {
        ByteToMessageHandler(SMPBlockDecoder(), maximumBufferSize: maximumBufferSize)
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let block = buffer.readSlice(length: TransportBlock.size) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(block))
        return .continue
    }

    /// A partial block at end of stream is dropped: the peer closed mid-block.
    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
