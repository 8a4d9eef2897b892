import ChatCore
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The WebSocket bot API (`-p PORT`): clients send `{"corrId": "...", "cmd": "..."}` text frames
/// and get `{"corrId": "...", "resp": {...}}`; events go to every client as `{"resp": {...}}`.
/// Bound to 127.0.0.1 by default: it gives full control of the chat profile, so any other
/// address needs a token (`--chat-server-token`) that clients present on the upgrade request.
enum ChatWebSocketServer {
    /// Largest request accepted (a command of several MB, e.g. a long message or a group profile
    /// with an image); a larger one is answered with an error and the socket stays open.
    static let maxMessageSize = 8 << 20
    /// Largest single frame read before the socket is closed (code 1009): the cap above, plus headroom
    /// so an oversized message still reaches the handler and gets its error answer.
    static let maxFrameSize = 64 << 20

    static func run(controller: ChatController, port: Int, host: String = "127.0.0.1", access: WebSocketAccess,
                    group: any EventLoopGroup) async throws {
        let clients = ClientSet()
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: maxFrameSize,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(access.allows(head) ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                let handler = WebSocketHandler(controller: controller, clients: clients)
                // The refusal handler only serves plain HTTP; frames go to the WebSocket handler.
                return channel.pipeline.removeHandler(name: RefusedRequestHandler.name).flatMap {
                    channel.pipeline.addHandler(handler)
                }
            })
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })).flatMap {
                    channel.pipeline.addHandler(RefusedRequestHandler(), name: RefusedRequestHandler.name)
                }
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
    /// The message being received went over the cap: its frames are dropped until the last one.
    private var oversized = false

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
            if !oversized && fragments.readableBytes + data.readableBytes <= ChatWebSocketServer.maxMessageSize {
                fragments.writeBuffer(&data)
            } else {
                oversized = true
                fragments.clear()
            }
            guard frame.fin else { return }
            if oversized {
                oversized = false
                return sender?.send(Self.malformed(nil, "message too large: the limit is \(ChatWebSocketServer.maxMessageSize) bytes")) ?? ()
            }
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

/// Who may open the WebSocket API: anyone on loopback without a token (as SimpleX's CLI), and
/// with a token only clients presenting it (`Authorization: Bearer TOKEN` or `?token=TOKEN`).
struct WebSocketAccess: Sendable {
    let token: String?

    func allows(_ head: HTTPRequestHead) -> Bool {
        guard let token else { return true }
        if let auth = head.headers.first(name: "Authorization"), auth.hasPrefix("Bearer ") {
            return Self.same(String(auth.dropFirst("Bearer ".count)), token)
        }
        if let q = head.uri.split(separator: "?", maxSplits: 1).dropFirst().first {
            for pair in q.split(separator: "&") where pair.hasPrefix("token=") {
                let v = String(pair.dropFirst("token=".count)).removingPercentEncoding ?? ""
                return Self.same(v, token)
            }
        }
        return false
    }

    /// Compares without an early exit, so the time taken does not reveal the matching prefix.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = x.count ^ y.count
        for i in 0..<max(x.count, y.count) { diff |= Int((i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)) }
        return diff == 0
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}

/// Answers an HTTP request that was not (allowed to be) upgraded: 401 without a valid token.
final class RefusedRequestHandler: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    static let name = "refused-request"
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let body = "WebSocket API: a valid token is required (Authorization: Bearer TOKEN)\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: .unauthorized, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
