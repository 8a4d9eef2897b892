import Foundation
import NIOCore
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import XCTest

/// A destination that does not follow the protocol: our proxy answers its client with the
/// reference's `smpProxyError` for each kind of bad answer, and keeps serving.
final class MisbehavingDestinationTests: XCTestCase {
    /// Answers every command with a fixed body (after the transport handshake, which is real).
    final class FixedAnswer: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let params: TransmissionParams
        let answer: @Sendable (SMPCommand?) -> [UInt8]
        init(params: TransmissionParams, answer: @escaping @Sendable (SMPCommand?) -> [UInt8]) {
            self.params = params
            self.answer = answer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var b = unwrapInboundIn(data)
            let block = b.readBytes(length: b.readableBytes) ?? []
            guard let ts = try? TransmissionBatch.split(block: block) else { return }
            var out: [[UInt8]] = []
            for raw in ts {
                guard let p = try? RawTransmission.parse(raw, params) else { continue }
                let cmd = try? SMPCommand.parse(p.transmission.body, version: params.version)
                let body: [UInt8]
                if case .ping? = cmd { body = Array("PONG".utf8) } else { body = answer(cmd) }
                if let t = try? RawTransmission(corrId: p.transmission.corrId, entityId: [], body: body).encoded(params) { out.append(t) }
            }
            guard !out.isEmpty, let blocks = try? TransmissionBatch.blocks(out) else { return }
            for blk in blocks { context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: blk)), promise: nil) }
        }
    }

    private func withDestination(answer: @escaping @Sendable (SMPCommand?) -> [UInt8],
                                 _ body: (ProtocolServer) async throws -> Void) async throws {
        let creds = try ServerCredentials.generate(commonName: "127.0.0.1")
        let server = try await SMPTransportServer.start(host: "127.0.0.1", port: 0, credentials: creds, group: TestGroup.shared) { s in
            FixedAnswer(params: TransmissionParams(sessionId: s.sessionId, version: s.version), answer: answer)
        }
        do {
            try await body(ProtocolServer(hosts: ["127.0.0.1"], port: String(server.port), keyHash: creds.keyHash))
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    func testBadAnswersToRFWDBecomeTheReferenceProxyErrors() async throws {
        let proxyRelay = try await TestRelay.start()
        let cases: [(String, [UInt8], ErrorType)] = [
            ("unknown response", Array("HELLO".utf8), .proxy(.broker(.response("CMD UNKNOWN")))),
            ("response with bad parameters", Array("IDS x".utf8), .proxy(.broker(.response("CMD SYNTAX")))),
            ("another response", Array("OK".utf8), .proxy(.broker(.unexpected("OK")))),
            ("the destination's error", Array("ERR QUOTA".utf8), .proxy(.proto(.quota))),
            ("RRES that does not open", Array("RRES ".utf8) + SecureRandom.bytes(100), .crypto),
        ]
        for (name, answer, expected) in cases {
            try await withDestination(answer: { _ in answer }) { destination in
                let conn = try await RawConnection(relay: proxyRelay)
                let pkey = try await conn.command(.prxy(server: destination, basicAuth: nil))
                guard case .pkey(let sid, _, _) = pkey else { return XCTFail("\(name): \(pkey)") }
                let pfwd = SMPCommand.pfwd(version: 17, publicKey: X25519PrivateKey().publicKey.x509Encoded, encryptedTransmission: [1, 2, 3])
                let r = try await conn.command(pfwd, entityId: sid)
                XCTAssertEqual(r, .err(expected), name)
                let pong = try await conn.command(.ping)
                XCTAssertEqual(pong, .pong, name)
                await conn.close()
            }
        }
        await proxyRelay.server.shutdown()
    }
}
