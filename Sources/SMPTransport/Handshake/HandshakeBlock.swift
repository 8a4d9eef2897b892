import SMPProtocol
import SimplexFoundation

/// Handshake messages travel as plain padded blocks (`sendHandshake`/`getHandshake`), before any
/// block encryption starts.
enum HandshakeBlock {
    static func encode(_ message: some SMPEncodable) throws -> [UInt8] {
        try Padding.pad(message.smpEncoded(), to: TransportBlock.size)
    }

    /// A block that does not unpad is `LARGE_MSG` (tGetBlock), one that does not parse is
    /// `HANDSHAKE PARSE`; bytes after the message are ignored.
    static func decode<T: SMPDecodable>(_ type: T.Type, block: some Collection<UInt8>) throws(TransportError) -> T {
        let bytes = Array(block)
        guard bytes.count == TransportBlock.size, let content = try? Padding.unpad(bytes) else { throw .largeMessage }
        var d = SMPDecoder(content)
        guard let message = try? T(from: &d) else { throw .handshake(.parse) }
        return message
    }
}
