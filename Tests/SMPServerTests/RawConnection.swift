import NIOConcurrencyHelpers
import NIOCore
import SimplexFoundation
import SMPProtocol
import SMPTransport
import XCTest

/// A relay connection below the client library, for sending malformed bytes and reading exactly
/// what comes back.
final class RawConnection: Sendable {
    let channel: any Channel
    let session: SMPClientSession
    private let inbox: NIOLockedValueBox<[[UInt8]]>

    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let inbox: NIOLockedValueBox<[[UInt8]]>
        init(_ inbox: NIOLockedValueBox<[[UInt8]]>) { self.inbox = inbox }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var b = unwrapInboundIn(data)
            let bytes = b.readBytes(length: b.readableBytes) ?? []
            inbox.withLockedValue { $0.append(bytes) }
        }
    }

    /// `proxyServer`: connect as a proxying relay does (the handshake flag; no block encryption).
    init(relay: TestRelay, versions: SMPVersionRange = SMPVersion.supported, proxyServer: Bool = false) async throws {
        let inbox = NIOLockedValueBox<[[UInt8]]>([])
        self.inbox = inbox
        (channel, session) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: relay.server.port, keyHash: relay.credentials.keyHash, versions: versions, proxyServer: proxyServer,
            group: TestGroup.shared
        ) { _ in Collector(inbox) }
    }

    /// Writes a 16384-byte block as is (its content is not checked on the way out).
    func writeBlock(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    /// Writes several blocks with one flush, so the relay reads them as one burst.
    func writeBlocks(_ blocks: [[UInt8]]) async throws {
        for b in blocks { channel.write(channel.allocator.buffer(bytes: b), promise: nil) }
        channel.flush()
    }

    /// Next block from the relay, split into its transmissions.
    func nextTransmissions(timeout: Double = 5) async throws -> [RawTransmission] {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            let block = inbox.withLockedValue { $0.isEmpty ? nil : $0.removeFirst() }
            if let block { return try TransmissionBatch.split(block: block).map { try RawTransmission.parseFromServer($0, params) } }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        throw SMPError.noBlock
    }

    /// The first response in the next block, decoded.
    func nextResponse() async throws -> BrokerMessage {
        try BrokerMessage.parse(try await nextTransmissions()[0].body, version: session.version)
    }

    /// The transmission framing of the negotiated version.
    var params: TransmissionParams { TransmissionParams(sessionId: session.sessionId, version: session.version) }

    /// Sends one well-formed command and returns the response.
    func command(_ cmd: SMPCommand, entityId: [UInt8] = [], key: PrivateAuthKey? = nil, corrId: [UInt8] = SecureRandom.bytes(24)) async throws -> BrokerMessage {
        let body = try cmd.smpEncoded(version: session.version)
        var auth: [UInt8] = []
        if let key {
            let authorized = try RawTransmission.authorizedBytes(sessionId: session.sessionId, corrId: corrId, entityId: entityId, body: body)
            let serverKey = try session.serverSessionKey.map { try X25519PublicKey(rawRepresentation: Array($0.rawRepresentation)) }
            auth = try TransmissionAuth.authorize(key: key, authorized: authorized, corrId: corrId, serverSessionKey: serverKey)
        }
        let t = try RawTransmission(authorization: auth, corrId: corrId, entityId: entityId, body: body).encoded(params)
        try await writeBlock(try TransmissionBatch.blocks([t])[0])
        let r = try await nextTransmissions()
        XCTAssertEqual(r.first?.corrId, corrId)
        return try BrokerMessage.parse(r[0].body, version: session.version)
    }

    func close() async { try? await channel.close() }

    enum SMPError: Error { case noBlock }
}
