import NIOCore
import SimplexFoundation
import SMPProtocol

/// Upper handler of a relay connection once the transport handshake is done: each inbound
/// block's transmissions are processed in order and their responses batched back into blocks,
/// as the reference's `receive`/`send` threads do. A malformed block or transmission gets ERR
/// and the connection carries on. Responses to the blocks of one socket read are flushed once,
/// when the read is done: one write for a burst of commands instead of one per block.
final class ServerConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let processor: CommandProcessor
    private let session: ConnectionSession
    private var client: ServerClient?
    /// Responses written in this read burst and not yet flushed.
    private var unflushed = false

    init(processor: CommandProcessor, session: ConnectionSession) {
        self.processor = processor
        self.session = session
    }

    func handlerAdded(context: ChannelHandlerContext) {
        client = ServerClient(channel: context.channel, params: session.params)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let client else { return }
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        let transmissions: [[UInt8]]
        do {
            transmissions = try TransmissionBatch.split(block: bytes)
        } catch {
            client.send([Outgoing(corrId: [], entityId: [], message: .err(.block))], flush: false)
            unflushed = true
            return
        }
        var responses: [Outgoing] = []
        var messages: [Outgoing] = []
        responses.reserveCapacity(transmissions.count)
        for raw in transmissions {
            let parsed: RawTransmission.Parsed
            do {
                parsed = try RawTransmission.parse(raw, session.params)
            } catch {
                responses.append(Outgoing(corrId: error.corrId, entityId: [], message: .err(error.error)))
                continue
            }
            let (response, message) = processor.process(parsed, client: client, session: session)
            if let response { responses.append(response) }
            if let message { messages.append(message) }
        }
        // As the reference's `send`: up to 4 responses share a block with the first message;
        // the other messages go one per block after them.
        if responses.isEmpty, messages.isEmpty { return }
        if let first = messages.first, responses.count <= 4 {
            client.send(responses + [first], flush: false)
            client.sendSeparately(Array(messages.dropFirst()), flush: false)
        } else {
            client.send(responses, flush: false)
            client.sendSeparately(messages, flush: false)
        }
        unflushed = true
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.channel.flush()
        }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client { processor.store.clientClosed(client) }
        client = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
