import NIOCore
import SimplexFoundation
import SMPProtocol

/// Upper handler of a relay connection once the transport handshake is done: each inbound
/// block's transmissions are processed in order and their responses batched back into blocks,
/// as the reference's `receive`/`send` threads do. A malformed block or transmission gets ERR
/// and the connection carries on. The responses to all blocks of one socket read go to the
/// client's outbox together when the read is done, to share blocks with each other and with
/// messages delivered meanwhile: the reference answers each block with its own block, a 16 KB
/// block to encrypt, write and open for a few OKs (docs/protocol-notes.md, SMP, "Batching").
final class ServerConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let processor: CommandProcessor
    private let session: ConnectionSession
    private var client: ServerClient?
    /// Responses (in order) and messages to send after them, of the blocks of this socket read.
    private var responses: [Outgoing] = []
    private var messages: [Outgoing] = []

    init(processor: CommandProcessor, session: ConnectionSession) {
        self.processor = processor
        self.session = session
    }

    func handlerAdded(context: ChannelHandlerContext) {
        client = ServerClient(channel: context.channel, params: session.params, stats: processor.stats)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let client else { return }
        processor.stats.blocksReceived.add(1)
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        let transmissions: [[UInt8]]
        do {
            transmissions = try TransmissionBatch.split(block: bytes)
        } catch {
            responses.append(Outgoing(corrId: [], entityId: [], message: .err(.block)))
            return
        }
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
    }

    /// Hands what the read's blocks answered to the connection's outbox, which writes it later in
    /// this loop iteration with whatever else is queued for this client by then.
    func channelReadComplete(context: ChannelHandlerContext) {
        if let client, !responses.isEmpty || !messages.isEmpty {
            client.send(responses + messages)
            responses.removeAll(keepingCapacity: true)
            messages.removeAll(keepingCapacity: true)
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
