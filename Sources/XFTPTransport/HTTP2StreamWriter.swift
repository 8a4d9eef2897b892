import NIOCore
import NIOHPACK
import NIOHTTP2

/// Writes one HTTP/2 message: a header block, then body pieces, the last one ending the stream.
/// Each write waits while the stream's flow-control window is closed, so a large body is never
/// held in memory whole.
public struct HTTP2StreamWriter: Sendable {
    private let outbound: NIOAsyncChannelOutboundWriter<HTTP2Frame.FramePayload>

    public init(_ outbound: NIOAsyncChannelOutboundWriter<HTTP2Frame.FramePayload>) {
        self.outbound = outbound
    }

    public func headers(_ headers: HPACKHeaders, endStream: Bool) async throws {
        try await outbound.write(.headers(.init(headers: headers, endStream: endStream)))
    }

    public func data(_ bytes: [UInt8], endStream: Bool = false) async throws {
        var b = ByteBufferAllocator().buffer(capacity: bytes.count)
        b.writeBytes(bytes)
        try await outbound.write(.data(.init(data: .byteBuffer(b), endStream: endStream)))
    }

    /// A body piece copied from memory the caller keeps (one copy, into the frame's buffer).
    public func data(_ bytes: UnsafeRawBufferPointer, endStream: Bool = false) async throws {
        var b = ByteBufferAllocator().buffer(capacity: bytes.count)
        b.writeBytes(bytes)
        try await outbound.write(.data(.init(data: .byteBuffer(b), endStream: endStream)))
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
