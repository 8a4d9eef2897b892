import NIOCore
import SMPProtocol
import SimplexFoundation

/// Encrypts and decrypts transport blocks from v11 (`EncryptedBlock`), between the framing and
/// the upper layer, so the layers above keep reading and writing plain padded 16384-byte blocks:
/// outbound, the plain block is unpadded and sealed; inbound, the opened payload is padded again.
/// A block that does not open ends the connection (the chains cannot get back in step).
final class SMPBlockCipher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var send: SecretBoxChainKey
    private var receive: SecretBoxChainKey
    private var failed = false

    init(send: SecretBoxChainKey, receive: SecretBoxChainKey) {
        self.send = send
        self.receive = receive
    }

    /// One pass per block and no intermediate arrays: the padded payload inside the box is the
    /// plain block's first 16368 bytes (same 2-byte length, same '#' padding), so opening writes
    /// straight into the outgoing plain block and 16 pad bytes complete it; sealing reads the
    /// plain block's first 16368 bytes straight into the box.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let buffer = unwrapInboundIn(data)
        do {
            guard buffer.readableBytes == TransportBlock.size else { throw TransportError.largeMessage }
            var plain = context.channel.allocator.buffer(capacity: TransportBlock.size)
            try buffer.withUnsafeReadableBytes { box in
                _ = try plain.writeWithUnsafeMutableBytes(minimumWritableBytes: EncryptedBlock.paddedPayloadSize) { out in
                    let dst = UnsafeMutableRawBufferPointer(rebasing: out[0..<EncryptedBlock.paddedPayloadSize])
                    try EncryptedBlock.open(block: box, into: dst, chain: &receive)
                    return EncryptedBlock.paddedPayloadSize
                }
            }
            // The inner length must fit the inner padded size, as `unPad` checks it in the reference.
            guard let n = plain.getInteger(at: plain.readerIndex, as: UInt16.self), Int(n) <= EncryptedBlock.maxPayload else {
                throw TransportError.largeMessage
            }
            plain.writeRepeatingByte(Padding.padByte, count: CryptoBox.tagLength)
            context.fireChannelRead(wrapInboundOut(plain))
        } catch {
            failed = true
            context.fireErrorCaught(TransportError.largeMessage)
            context.close(promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        do {
            guard buffer.readableBytes == TransportBlock.size,
                  let n = buffer.getInteger(at: buffer.readerIndex, as: UInt16.self)
            else { throw TransportError.block }
            guard Int(n) <= EncryptedBlock.maxPayload else { throw TransportError.largeMessage }
            var sealed = context.channel.allocator.buffer(capacity: TransportBlock.size)
            try buffer.withUnsafeReadableBytes { plain in
                _ = try sealed.writeWithUnsafeMutableBytes(minimumWritableBytes: TransportBlock.size) { out in
                    let src = UnsafeRawBufferPointer(rebasing: plain[0..<EncryptedBlock.paddedPayloadSize])
                    try EncryptedBlock.seal(paddedPayload: src, into: UnsafeMutableRawBufferPointer(rebasing: out[0..<TransportBlock.size]),
                                            chain: &send)
                    return TransportBlock.size
                }
            }
            context.write(wrapOutboundOut(sealed), promise: promise)
        } catch let e as TransportError {
            promise?.fail(e)
        } catch {
            promise?.fail(TransportError.largeMessage)
        }
    }
}
