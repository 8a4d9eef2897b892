import NIOCore
import NIOHPACK
import NIOHTTP2

/// Writes one HTTP/2 message: a header block, then body pieces, the last one ending the stream.
/// Each write waits while the stream's flow-control window is closed, so a large body is never
/// held in memory whole.
public struct HTTP2StreamWriter: Sendable {
    private let outbound: NIOAsyncChannelOutboundWriter<HTTP2Frame.FramePayload>
    /// Marked when HTTP/2 took a piece (the stream's window let it through): the client's stall timeout.
    private let progress: TransferProgress?

    public init(_ outbound: NIOAsyncChannelOutboundWriter<HTTP2Frame.FramePayload>, progress: TransferProgress? = nil) {
        self.outbound = outbound
        self.progress = progress
    }

    public func headers(_ headers: HPACKHeaders, endStream: Bool) async throws {
        try await outbound.write(.headers(.init(headers: headers, endStream: endStream)))
    }

    public func data(_ bytes: [UInt8], endStream: Bool = false) async throws {
        var b = ByteBufferAllocator().buffer(capacity: bytes.count)
        b.writeBytes(bytes)
        try await outbound.write(.data(.init(data: .byteBuffer(b), endStream: endStream)))
        progress?.moved()
    }

    /// A body piece copied from memory the caller keeps (one copy, into the frame's buffer).
    public func data(_ bytes: UnsafeRawBufferPointer, endStream: Bool = false) async throws {
        var b = ByteBufferAllocator().buffer(capacity: bytes.count)
        b.writeBytes(bytes)
        try await outbound.write(.data(.init(data: .byteBuffer(b), endStream: endStream)))
        progress?.moved()
    }

    /// A body piece already in a buffer of its own (no copy).
    public func data(_ buffer: ByteBuffer, endStream: Bool = false) async throws {
        try await outbound.write(.data(.init(data: .byteBuffer(buffer), endStream: endStream)))
        progress?.moved()
    }

    /// Ends the message with an empty DATA frame.
    public func end() async throws { try await data([], endStream: true) }

    /// `200 OK` response headers (the reference sends no others without CORS).
    public static let ok: HPACKHeaders = [":status": "200"]

    /// The request headers of the reference client: `POST /`.
    public static func post(authority: String) -> HPACKHeaders {
        [":method": "POST", ":scheme": "https", ":path": "/", ":authority": authority]
    }
}
