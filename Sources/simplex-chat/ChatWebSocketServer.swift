import ChatCore
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The WebSocket bot API (`-p PORT`): clients send `{"corrId": "...", "cmd": "..."}` text frames
/// and get `{"corrId": "...", "resp": {...}}`; events go to every client as `{"resp": {...}}`.
/// Bound to 127.0.0.1: it gives full control of the chat profile.
enum ChatWebSocketServer {
    static func run(controller: ChatController, port: Int, host: String = "127.0.0.1", group: any EventLoopGroup) async throws {
        let clients = ClientSet()
        let upgrader = NIOWebSocketServerUpgrader(
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                let handler = WebSocketHandler(controller: controller, clients: clients)
                return channel.pipeline.addHandler(handler)
            })
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        say("WebSocket API on ws://\(host):\(channel.localAddress?.port ?? port)")
        // Events fan out to every connected client.
        while true {
            guard let e = await controller.nextEvent(timeout: 1) else { continue }
            let frame = wrap(event: e)
            for c in clients.all { c.send(frame) }
        }
    }

    /// `{"result": E}` / `{"error": E}` from the core as the WebSocket form `{"resp": E}`.
    static func wrap(event json: String) -> String {
        guard let obj = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return #"{"resp":{}}"# }
        let resp: Any = obj["result"] ?? ["type": "chatError", "chatError": obj["error"] ?? [:]]
        let data = (try? JSONSerialization.data(withJSONObject: ["resp": resp])) ?? Data(#"{"resp":{}}"#.utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// Connected clients that receive events.
final class ClientSet: Sendable {
    private let members = NIOLockedValueBox<[ObjectIdentifier: WebSocketHandler.Sender]>([:])
    func add(_ s: WebSocketHandler.Sender) { members.withLockedValue { $0[ObjectIdentifier(s)] = s } }
    func remove(_ s: WebSocketHandler.Sender) { _ = members.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(s)) } }
    var all: [WebSocketHandler.Sender] { members.withLockedValue { Array($0.values) } }
}

final class WebSocketHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Writes text frames to one client from any thread.
    final class Sender: Sendable {
        let channel: any Channel
        init(_ channel: any Channel) { self.channel = channel }
        func send(_ text: String) {
            let channel = self.channel
            channel.eventLoop.execute {
                var buf = channel.allocator.buffer(capacity: text.utf8.count)
                buf.writeString(text)
                channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: buf), promise: nil)
            }
        }
    }

    let controller: ChatController
    let clients: ClientSet
    private var sender: Sender?
    private var fragments = ByteBuffer()

    init(controller: ChatController, clients: ClientSet) {
        self.controller = controller
        self.clients = clients
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let s = Sender(context.channel)
        sender = s
        clients.add(s)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let s = sender { clients.remove(s) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .connectionClose:
            context.close(promise: nil)
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.data)), promise: nil)
        case .text, .continuation:
            var data = frame.unmaskedData
            fragments.writeBuffer(&data)
            guard frame.fin else { return }
            let text = fragments.readString(length: fragments.readableBytes) ?? ""
            fragments.clear()
            handle(text)
        case .binary:
            sender?.send(Self.malformed(nil, "binary frames are not supported"))
        default:
            break
        }
    }

    /// Runs one request; a malformed frame gets an error answer and the socket stays open.
    private func handle(_ text: String) {
        guard let sender else { return }
        guard let obj = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return sender.send(Self.malformed(nil, "request is not JSON"))
        }
        let corrId = obj["corrId"].map { "\($0)" }
        guard let cmd = obj["cmd"] as? String else {
            return sender.send(Self.malformed(corrId, "request has no \"cmd\" string"))
        }
        let controller = self.controller
        Task {
            let r = await controller.execute(cmd)
            sender.send(ChatSrvResponse(corrId: corrId, response: r).jsonString())
        }
    }

    static func malformed(_ corrId: String?, _ message: String) -> String {
        ChatSrvResponse(corrId: corrId, response: .failure(.error(errorType: .commandError(message: message)))).jsonString()
    }
}
