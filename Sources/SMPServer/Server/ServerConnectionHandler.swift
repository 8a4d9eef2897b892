import NIOCore
import SimplexFoundation
import SMPProtocol

/// Upper handler of a relay connection once the transport handshake is done: each inbound
/// block's transmissions are processed in order and their responses batched back into blocks.
/// A malformed block or transmission gets ERR and the connection carries on.
final class ServerConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let processor: CommandProcessor
    private let session: ConnectionSession
    private var client: ServerClient?

    init(processor: CommandProcessor, session: ConnectionSession) {
        self.processor = processor
        self.session = session
    }

    func handlerAdded(context: ChannelHandlerContext) {
        client = ServerClient(channel: context.channel, version: session.version)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let client else { return }
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        let transmissions: [[UInt8]]
        do {
            transmissions = try TransportBlock.decode(bytes)
        } catch {
            client.send([Self.errorTransmission(.block)])
            return
        }
        var responses: [RawTransmission] = []
        responses.reserveCapacity(transmissions.count)
        for raw in transmissions {
            guard let t = try? RawTransmission.smpDecode(raw) else {
                // Unparseable framing inside the block: answer without a corrId.
                responses.append(Self.errorTransmission(.block))
                continue
            }
            responses.append(processor.process(t, client: client, session: session))
        }
        client.send(responses)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client { processor.store.clientClosed(client) }
        client = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    static func errorTransmission(_ e: ErrorType) -> RawTransmission {
        RawTransmission(corrId: [], entityId: [], body: (try? BrokerMessage.err(e).smpEncoded()) ?? [])
    }
}
