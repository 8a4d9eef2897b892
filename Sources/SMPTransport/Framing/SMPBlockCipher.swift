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

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var buffer = unwrapInboundIn(data)
        let block = buffer.readBytes(length: buffer.readableBytes) ?? []
        do {
            let payload = try EncryptedBlock.open(block, chain: &receive)
            let plain = try Padding.pad(payload, to: TransportBlock.size)
            context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: plain)))
        } catch {
            failed = true
            context.fireErrorCaught(TransportError.largeMessage)
            context.close(promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        do {
            guard buffer.readableBytes == TransportBlock.size else { throw TransportError.block }
            let payload = try Padding.unpad(buffer.readableBytesView)
            let sealed = try EncryptedBlock.seal(payload, chain: &send)
            context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: sealed)), promise: promise)
        } catch let e as TransportError {
            promise?.fail(e)
        } catch {
            promise?.fail(TransportError.largeMessage)
        }
    }
}
