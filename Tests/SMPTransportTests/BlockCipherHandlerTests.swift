import NIOCore
import NIOEmbedded
import SMPProtocol
import SimplexFoundation
import XCTest

@testable import SMPTransport

/// The v11 block cipher in a pipeline: blocks go through it byte for byte as `EncryptedBlock`
/// seals and opens them, and a block whose inner length does not fit the inner padding (what the
/// reference's `unPad` rejects) ends the connection with LARGE_MSG like a bad tag does.
final class BlockCipherHandlerTests: XCTestCase {
    private func keys() throws -> (server: (send: SecretBoxChainKey, receive: SecretBoxChainKey),
                                   client: (send: SecretBoxChainKey, receive: SecretBoxChainKey)) {
        let secret = [UInt8](repeating: 7, count: 32), session = [UInt8](repeating: 3, count: 32)
        return (try EncryptedBlock.chainKeys(sessionId: session, dhSecret: secret, isServer: true),
                try EncryptedBlock.chainKeys(sessionId: session, dhSecret: secret, isServer: false))
    }

    func testBlocksMatchEncryptedBlockBothWays() throws {
        var (server, client) = try keys()
        let channel = EmbeddedChannel(handler: SMPBlockCipher(send: server.send, receive: server.receive))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        XCTAssertTrue(channel.isActive)
        for payload in [Array("hello".utf8), [UInt8](repeating: 0x41, count: EncryptedBlock.maxPayload), []] {
            // Outbound: a plain padded block leaves as the block EncryptedBlock.seal makes.
            try channel.writeOutbound(ByteBuffer(bytes: try Padding.pad(payload, to: TransportBlock.size)))
            var out = try XCTUnwrap(channel.readOutbound(as: ByteBuffer.self))
            let sealed = try XCTUnwrap(out.readBytes(length: out.readableBytes))
            XCTAssertEqual(sealed.count, TransportBlock.size)
            XCTAssertEqual(try EncryptedBlock.open(sealed, chain: &client.receive), payload)
            // Inbound: a sealed block arrives as the plain padded block.
            try channel.writeInbound(ByteBuffer(bytes: try EncryptedBlock.seal(payload, chain: &client.send)))
            var plain = try XCTUnwrap(channel.readInbound(as: ByteBuffer.self))
            XCTAssertEqual(plain.readBytes(length: plain.readableBytes), try Padding.pad(payload, to: TransportBlock.size))
        }
        // A plain block too large for the inner padding is refused, and the connection goes on.
        let big = [UInt8](repeating: 1, count: EncryptedBlock.maxPayload + 1)
        XCTAssertThrowsError(try channel.writeOutbound(ByteBuffer(bytes: try Padding.pad(big, to: TransportBlock.size)))) {
            XCTAssertEqual($0 as? TransportError, .largeMessage)
        }
        XCTAssertTrue(channel.isActive)
    }

    func testInnerLengthBeyondPaddingIsLargeMessage() throws {
        var (server, client) = try keys()
        let channel = EmbeddedChannel(handler: SMPBlockCipher(send: server.send, receive: server.receive))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        XCTAssertTrue(channel.isActive)
        // A correctly sealed box whose inner length claims 16367 bytes (the most is 16366).
        var inner = [UInt8](repeating: 0x23, count: EncryptedBlock.paddedPayloadSize)
        inner[0] = UInt8((EncryptedBlock.maxPayload + 1) >> 8)
        inner[1] = UInt8((EncryptedBlock.maxPayload + 1) & 0xFF)
        let (key, nonce) = try client.send.next()
        let box = try CryptoBox.seal(key: try CryptoBoxKey(dhSecret: key), nonce: nonce, plaintext: inner)
        XCTAssertThrowsError(try channel.writeInbound(ByteBuffer(bytes: box))) {
            XCTAssertEqual($0 as? TransportError, .largeMessage)
        }
        XCTAssertNil(try channel.readInbound(as: ByteBuffer.self))
        XCTAssertFalse(channel.isActive)
        _ = server
    }
}
