import NIOCore

/// The body that follows a command block in an XFTP request (the chunk of FPUT). The transport
/// hands it in pieces of at most the size asked for; an empty piece means the body ended.
public protocol XFTPRequestBody: Sendable {
    mutating func next(max: Int) async throws -> [UInt8]
    /// The next piece as it was received (no copy), at most `max` bytes; nil when the body ended.
    mutating func nextBuffer(max: Int) async throws -> ByteBuffer?
}

extension XFTPRequestBody {
    public mutating func nextBuffer(max: Int) async throws -> ByteBuffer? {
        let b = try await next(max: max)
        return b.isEmpty ? nil : ByteBuffer(bytes: b)
    }
}

/// A body already in memory (tests, small requests).
public struct BufferedRequestBody: XFTPRequestBody {
    private var bytes: [UInt8]
    private var pos = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public mutating func next(max: Int) async throws -> [UInt8] {
        let n = min(max, bytes.count - pos)
        defer { pos += n }
        return Array(bytes[pos..<(pos + n)])
    }
}
