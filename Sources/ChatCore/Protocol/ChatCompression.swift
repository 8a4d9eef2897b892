import CZstd
import Foundation

/// One part of a compressed chat body, as simplexmq's `Compressed` (Compression.hs): bodies of at
/// most 180 bytes pass through as they are (compressing them costs more than it saves), longer ones
/// are one zstd frame at level 3 that records its decompressed size.
public enum CompressedPart: Sendable, Hashable {
    /// Wire: `'0'`, a 1-byte length, the bytes.
    case passthrough(Data)
    /// Wire: `'1'`, a 2-byte big-endian length, the zstd frame.
    case compressed(Data)

    /// simplexmq `maxLengthPassthrough`, sampled from real clients' messages.
    public static let maxLengthPassthrough = 180
    /// simplexmq `compressionLevel`.
    public static let compressionLevel: Int32 = 3

    /// simplexmq `compress1`: passthrough up to 180 bytes, a zstd frame above.
    public static func compress(_ body: Data) throws(ChatProtocolError) -> CompressedPart {
        guard body.count > maxLengthPassthrough else { return .passthrough(body) }
        let bound = ZSTD_compressBound(body.count)
        var out = Data(count: bound)
        let written = out.withUnsafeMutableBytes { dst in
            body.withUnsafeBytes { src in
                ZSTD_compress(dst.baseAddress, bound, src.baseAddress, body.count, compressionLevel)
            }
        }
        // With a compressBound-sized destination only an allocation failure inside libzstd is left.
        if ZSTD_isError(written) != 0 { throw .encodingFailed("zstd: " + String(cString: ZSTD_getErrorName(written))) }
        out.count = written
        return .compressed(out)
    }

    /// simplexmq `limitDecompress1`: the frame must state its decompressed size and that size must
    /// be at most `limit`, so a small hostile frame cannot make us allocate or inflate more.
    public func decompressed(limit: Int = ChatProtocolLimits.maxDecompressedMsgLength) throws(ChatProtocolError) -> Data {
        switch self {
        case .passthrough(let bytes):
            return bytes
        case .compressed(let frame):
            let size = frame.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, frame.count) }
            // ZSTD_CONTENTSIZE_UNKNOWN and ZSTD_CONTENTSIZE_ERROR are the two largest UInt64 values.
            guard size <= UInt64(limit) else { throw .decompressedSizeUnknownOrTooLarge(limit: limit) }
            let capacity = Int(size)
            var out = Data(count: capacity)
            let n = out.withUnsafeMutableBytes { dst in
                frame.withUnsafeBytes { src in
                    ZSTD_decompress(dst.baseAddress, capacity, src.baseAddress, frame.count)
                }
            }
            if ZSTD_isError(n) != 0 {
                throw .decompressionFailed(String(cString: ZSTD_getErrorName(n)))
            }
            out.count = n
            return out
        }
    }

    /// The part's bytes on the wire (simplexmq `smpEncode`). A frame longer than 65,535 bytes
    /// cannot be framed; chat bodies are far smaller, so it is a `tooLarge` error.
    func encoded() throws(ChatProtocolError) -> Data {
        switch self {
        case .passthrough(let bytes):
            guard bytes.count <= 255 else { throw .tooLarge(size: bytes.count, limit: 255) }
            return Data([UInt8(ascii: "0"), UInt8(bytes.count)]) + bytes
        case .compressed(let frame):
            guard frame.count <= 0xFFFF else { throw .tooLarge(size: frame.count, limit: 0xFFFF) }
            return Data([UInt8(ascii: "1"), UInt8(frame.count >> 8), UInt8(frame.count & 0xFF)]) + frame
        }
    }
}

/// Compressed chat bodies (chat version 8+): `'X'`, then a non-empty list of `CompressedPart`s
/// encoded as simplexmq encodes a `NonEmpty` (a 1-byte count, then the parts).
public enum ChatCompression {
    /// The marker byte of a compressed body (Protocol.hs `markCompressedBatch`).
    public static let marker = UInt8(ascii: "X")

    /// Protocol.hs `compressedBatchMsgBody_`: the body as the only part of a compressed body,
    /// which is how simplex-chat always sends one.
    public static func compressedBody(_ body: Data) throws(ChatProtocolError) -> Data {
        Data([marker, 1]) + (try CompressedPart.compress(body).encoded())
    }

    /// A compressed body of several parts (simplex-chat sends one; it reads any number).
    public static func body(_ parts: [CompressedPart]) throws(ChatProtocolError) -> Data {
        guard !parts.isEmpty, parts.count <= 255 else { throw .invalidCompressedBody("a compressed body has 1 to 255 parts") }
        var out = Data([marker, UInt8(parts.count)])
        for p in parts { out += try p.encoded() }
        return out
    }

    /// The parts of a compressed body without its marker. The whole input must be consumed, as
    /// simplexmq's `smpDecode` requires.
    public static func parts(_ data: Data) throws(ChatProtocolError) -> [CompressedPart] {
        var i = data.startIndex
        func byte() throws(ChatProtocolError) -> UInt8 {
            guard i < data.endIndex else { throw .invalidCompressedBody("not enough input") }
            defer { i += 1 }
            return data[i]
        }
        func take(_ n: Int) throws(ChatProtocolError) -> Data {
            guard data.endIndex - i >= n else { throw .invalidCompressedBody("not enough input") }
            defer { i += n }
            return Data(data[i..<i + n])
        }
        let count = Int(try byte())
        guard count > 0 else { throw .invalidCompressedBody("empty list") }
        var parts: [CompressedPart] = []
        for _ in 0..<count {
            switch try byte() {
            case UInt8(ascii: "0"):
                parts.append(.passthrough(try take(Int(try byte()))))
            case UInt8(ascii: "1"):
                let len = Int(try byte()) << 8 | Int(try byte())
                parts.append(.compressed(try take(len)))
            case let tag:
                throw .invalidCompressedBody("unknown Compressed tag: \(String(UnicodeScalar(tag)).debugDescription)")
            }
        }
        guard i == data.endIndex else { throw .invalidCompressedBody("endOfInput") }
        return parts
    }

    /// Protocol.hs `deliverMessagesB` / `encodeConnInfoPQ`: on a connection with post-quantum
    /// support whose chat version is 8 or more, a body longer than `limit` is sent compressed, and
    /// if even the compressed body is longer it is not sent (`tooLarge`). Otherwise the body is
    /// sent as it is.
    public static func bodyToSend(
        _ body: Data, pqSupport: Bool, chatVersion: UInt16, limit: Int = ChatProtocolLimits.maxCompressedMsgLength
    ) throws(ChatProtocolError) -> Data {
        guard pqSupport, chatVersion >= ChatProtocolVersion.pqEncryptionCompression, body.count > limit else { return body }
        let compressed = try compressedBody(body)
        guard compressed.count <= limit else { throw .tooLarge(size: compressed.count, limit: limit) }
        return compressed
    }
}
