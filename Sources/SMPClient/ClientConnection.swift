import NIOConcurrencyHelpers
import NIOCore
import SimplexFoundation
import SMPProtocol
import SMPTransport

/// One live transport connection to a relay: correlates responses with commands by corrId and
/// hands everything else (MSG, END, NMSG) to `onEvent`. Thread-safe. Commands sent by any callers
/// at about the same time share blocks: they wait in an outbox that the event loop packs into as
/// few blocks as they fit when it next runs (docs/protocol-notes.md, SMP, "Batching").
final class ClientConnection: Sendable {
    struct Session: Sendable {
        let version: UInt16
        let sessionId: [UInt8]
        let serverSessionKey: X25519PublicKey?
        /// The versions both sides support (the reference's `thServerVRange`).
        var versions: SMPVersionRange? = nil
        /// The server's chain and signed session key from its hello.
        var serverCertKey: CertChainPubKey? = nil
        /// crypto_box key of dh(server session key, this client's handshake key): the p2r secret
        /// a proxying relay shares with the destination (`sessSecret`).
        var sessionSecret: CryptoBoxKey? = nil

        var params: TransmissionParams { TransmissionParams(sessionId: sessionId, version: version) }
    }

    /// A queue command ready to authorize and send.
    struct Command: Sendable {
        let entityId: [UInt8]
        let command: SMPCommand
        let key: PrivateAuthKey?
        /// A caller-chosen corrId (NEW with link data: the sender ID is its hash); random if nil.
        var corrId: [UInt8]? = nil
        /// SUB and ACK may be answered with MSG, which is also an event.
        var answerIsEvent: Bool {
            switch command {
            case .sub, .ack: true
            default: false
            }
        }
    }

    private struct Pending {
        let promise: EventLoopPromise<BrokerMessage>
        /// When the command fails with `.timeout` if still unanswered.
        let deadline: NIODeadline
        let answerIsEvent: Bool
    }

    /// Encoded transmissions waiting for the event loop, and whether a drain is queued there.
    private struct Outbox {
        var transmissions: [[UInt8]] = []
        var drainQueued = false
    }

    let channel: Channel
    let session: Session
    /// DH keys of our X25519 queue keys with this session's server key.
    private let authenticatorKeys = AuthenticatorKeyCache(limit: 1024)
    private let pending = NIOLockedValueBox<[[UInt8]: Pending]>([:])
    private let outbox = NIOLockedValueBox(Outbox())
    /// The connection's one timeout timer, armed for the earliest deadline of the commands
    /// waiting (a timer per command cost a scheduled task, its allocation and its cancellation).
    private let timer: NIOLoopBoundBox<Scheduled<Void>?>
    private let onEvent: @Sendable (_ entityId: [UInt8], _ message: BrokerMessage) -> Void

    init(channel: Channel, session: Session, onEvent: @escaping @Sendable ([UInt8], BrokerMessage) -> Void) {
        self.channel = channel
        self.session = session
        self.onEvent = onEvent
        timer = .makeEmptyBox(valueType: Scheduled<Void>.self, eventLoop: channel.eventLoop)
    }

    /// Sends the commands in as few blocks as they fit and waits for all responses. Each result
    /// is the response or why there is none; an ERR response is returned as `.server`.
    func send(_ commands: [Command], timeout: Double) async -> [Result<BrokerMessage, SMPClientError>] {
        await sendDetailed(commands, timeout: timeout).map { r in
            r.mapError { e in
                switch e {
                case .client(let c): c
                // Callers outside private routing see an unparseable response as unexpected.
                case .unparseable: .unexpectedResponse("unparseable response")
                }
            }
        }
    }

    /// Why a command has no usable response, keeping apart a response that did not parse (the
    /// reference's `PCEResponseError`), which a proxy reports differently.
    enum DetailedError: Error {
        case client(SMPClientError)
        /// The response's error as `parseProtocol` gives it (CMD UNKNOWN or CMD SYNTAX).
        case unparseable(ErrorType)
    }

    /// `send`, with unparseable responses kept apart.
    func sendDetailed(_ commands: [Command], timeout: Double) async -> [Result<BrokerMessage, DetailedError>] {
        var transmissions: [[UInt8]] = []
        let deadline = NIODeadline.now() + .nanoseconds(Int64(timeout * 1e9))
        var futures: [Result<EventLoopFuture<BrokerMessage>, SMPClientError>] = []
        transmissions.reserveCapacity(commands.count)
        let params = session.params
        for c in commands {
            do {
                let corrId = c.corrId ?? SecureRandom.bytes(RawTransmission.corrIdLength)
                let body = try c.command.smpEncoded(version: session.version)
                var auth: [UInt8] = []
                if let key = c.key {
                    if case .x25519 = key, session.version < SMPVersion.authCommands { throw SMPClientError.transport(.noAuth) }
                    let authorized = try RawTransmission.authorizedBytes(sessionId: session.sessionId, corrId: corrId, entityId: c.entityId, body: body)
                    auth = try TransmissionAuth.authorize(key: key, authorized: authorized, corrId: corrId, serverSessionKey: session.serverSessionKey,
                                                         keys: authenticatorKeys)
                }
                let t = try RawTransmission(authorization: auth, corrId: corrId, entityId: c.entityId, body: body).encoded(params)
                guard TransmissionBatch.cost(of: t) <= TransmissionBatch.capacity else { throw SMPClientError.transport(.largeMessage) }
                let promise = channel.eventLoop.makePromise(of: BrokerMessage.self)
                pending.withLockedValue { $0[corrId] = Pending(promise: promise, deadline: deadline, answerIsEvent: c.answerIsEvent) }
                transmissions.append(t)
                futures.append(.success(promise.futureResult))
            } catch let e as SMPClientError {
                futures.append(.failure(e))
            } catch {
                futures.append(.failure(.unexpectedResponse("cannot encode command: \(error)")))
            }
        }
        if !transmissions.isEmpty { enqueue(transmissions) }
        var results: [Result<BrokerMessage, DetailedError>] = []
        results.reserveCapacity(futures.count)
        for f in futures {
            switch f {
            case .failure(let e): results.append(.failure(.client(e)))
            case .success(let future):
                do {
                    let m = try await future.get()
                    if case .err(let e) = m { results.append(.failure(.client(.server(e)))) } else { results.append(.success(m)) }
                } catch let e as SMPClientError {
                    results.append(.failure(.client(e)))
                } catch let e as UnparseableResponse {
                    results.append(.failure(.unparseable(e.error)))
                } catch {
                    results.append(.failure(.client(.network("\(error)"))))
                }
            }
        }
        return results
    }

    /// Adds transmissions to the outbox and queues a drain on the event loop unless one is queued:
    /// whatever other callers add before it runs goes out in the same blocks and the same flush.
    private func enqueue(_ transmissions: [[UInt8]]) {
        let queue = outbox.withLockedValue { o -> Bool in
            o.transmissions += transmissions
            defer { o.drainQueued = true }
            return !o.drainQueued
        }
        if queue { channel.eventLoop.execute { [self] in drain() } }
    }

    /// On the event loop: packs the outbox into blocks, writes and flushes them, and arms the
    /// timeout timer if it is not armed.
    private func drain() {
        let transmissions = outbox.withLockedValue { o -> [[UInt8]] in
            o.drainQueued = false
            defer { o.transmissions = [] }
            return o.transmissions
        }
        guard !transmissions.isEmpty else { return }
        do {
            for block in try TransmissionBatch.blocks(transmissions) { channel.write(channel.allocator.buffer(bytes: block), promise: nil) }
        } catch {
            // Each transmission fits a block (checked when encoded), so packing them cannot fail.
            failAll(.network("cannot batch commands: \(error)"))
            return
        }
        channel.flush()
        if timer.value == nil { armTimer() }
    }

    /// Arms the timer for the earliest deadline of the waiting commands (none: not armed). When it
    /// fires, the commands past their deadline fail with `.timeout` and it is armed again.
    private func armTimer() {
        let earliest = pending.withLockedValue { p in p.values.lazy.map(\.deadline).min() }
        guard let earliest else {
            timer.value = nil
            return
        }
        timer.value = channel.eventLoop.scheduleTask(deadline: earliest) { [weak self] in
            guard let self else { return }
            let now = NIODeadline.now()
            let expired = pending.withLockedValue { p -> [Pending] in
                let keys = p.filter { $0.value.deadline <= now }.map(\.key)
                return keys.compactMap { p.removeValue(forKey: $0) }
            }
            for e in expired { e.promise.fail(SMPClientError.timeout) }
            armTimer()
        }
    }

    /// Called by the inbound handler for every block.
    func received(block: [UInt8]) {
        guard let transmissions = try? TransmissionBatch.split(block: block) else { return }
        let params = session.params
        for raw in transmissions {
            guard let t = try? RawTransmission.parseFromServer(raw, params) else { continue }
            let message: BrokerMessage
            do {
                message = try BrokerMessage.parse(t.body, version: session.version)
            } catch {
                if !t.corrId.isEmpty {
                    // `parseProtocol`: an unknown tag is CMD UNKNOWN, anything else CMD SYNTAX.
                    let tag = String(decoding: t.body.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
                    let known = ["IDS", "LNK", "SOK", "SOKS", "MSG", "NID", "NMSG", "PKEY", "RRES", "PRES", "END", "ENDS",
                                 "DELD", "INFO", "OK", "ERR", "PONG"].contains(tag)
                    complete(corrId: t.corrId, with: .failure(UnparseableResponse(error: .cmd(known ? .syntax : .unknown))))
                }
                continue
            }
            if t.corrId.isEmpty {
                onEvent(t.entityId, message)
            } else {
                let isEvent = complete(corrId: t.corrId, with: .success(message))
                if isEvent, case .msg = message { onEvent(t.entityId, message) }
            }
        }
    }

    /// Completes a pending command once; returns whether its answer is also an event.
    @discardableResult
    private func complete(corrId: [UInt8], with result: Result<BrokerMessage, any Error>) -> Bool {
        guard let p = pending.withLockedValue({ $0.removeValue(forKey: corrId) }) else { return false }
        p.promise.completeWith(result)
        return p.answerIsEvent
    }

    /// Fails every waiting command, when the connection is gone.
    func failAll(_ error: SMPClientError) {
        let all = pending.withLockedValue { p -> [Pending] in
            defer { p.removeAll() }
            return Array(p.values)
        }
        for p in all { p.promise.fail(error) }
    }

    func close() { channel.close(promise: nil) }
}

/// A response that did not parse (carried to `sendDetailed`).
struct UnparseableResponse: Error {
    let error: ErrorType
}

/// Feeds inbound blocks to the connection and reports when the channel goes away.
final class ClientInboundHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let connection: NIOLockedValueBox<ClientConnection?> = NIOLockedValueBox(nil)
    private let onClose: @Sendable () -> Void

    init(onClose: @escaping @Sendable () -> Void) { self.onClose = onClose }

    func attach(_ c: ClientConnection) { connection.withLockedValue { $0 = c } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
        connection.withLockedValue { $0 }?.received(block: bytes)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.withLockedValue { $0 }?.failAll(.network("connection closed"))
        onClose()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
