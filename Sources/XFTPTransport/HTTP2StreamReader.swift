import NIOCore
import NIOHPACK
import NIOHTTP2

/// One HTTP/2 stream as an async channel of frame payloads (request on a server, response on a client).
public typealias HTTP2StreamChannel = NIOAsyncChannel<HTTP2Frame.FramePayload, HTTP2Frame.FramePayload>

/// Why a stream ended before its message did.
public enum HTTP2StreamError: Error, Sendable, Equatable {
    /// The peer reset the stream (RST_STREAM) or the connection closed mid-message.
    case reset
    /// The message did not start with a header block.
    case noHeaders
}

/// Reads one HTTP/2 message (headers, then the body) in pieces as it arrives. Memory stays
/// bounded: the async channel stops reading when its buffer is full, so the stream's flow-control
/// window is not reopened until the body is consumed (`getHTTP2Body` + `bodyPart` of the reference).
/// Used by one task at a time: a request handler or a client call owns its stream.
public final class HTTP2StreamReader: @unchecked Sendable {
    private var iterator: NIOAsyncChannelInboundStream<HTTP2Frame.FramePayload>.AsyncIterator
    private var buffer = ByteBuffer()
    /// The message's header block, once read.
    public private(set) var headers: HPACKHeaders?
    /// True once the peer ended the stream (END_STREAM) and the buffer holds the rest.
    public private(set) var ended = false

    /// Marked at every frame received (the client's stall timeout).
    private let progress: TransferProgress?

    public init(_ inbound: NIOAsyncChannelInboundStream<HTTP2Frame.FramePayload>, progress: TransferProgress? = nil) {
        iterator = inbound.makeAsyncIterator()
        self.progress = progress
    }

    /// Takes one frame into the buffer; false when the stream has nothing more.
    private func pull() async throws -> Bool {
        guard !ended else { return false }
        guard let frame = try await iterator.next() else {
            ended = true
            // A stream that closes before END_STREAM was cut off.
            throw HTTP2StreamError.reset
        }
        progress?.moved()
        switch frame {
        case .headers(let h):
            if headers == nil { headers = h.headers }
            if h.endStream { ended = true }
        case .data(let d):
            if case .byteBuffer(var b) = d.data {
                // Without this the buffer would keep every byte of the body it ever read (a 4 MB
                // chunk grown by doubling, each step a fresh mapping to fault in): an empty buffer
                // takes the frame as it is, and consumed bytes are dropped before appending.
                if buffer.readableBytes == 0 {
                    buffer = b
                } else {
                    if buffer.readerIndex >= 64 * 1024 { buffer.discardReadBytes() }
                    buffer.writeBuffer(&b)
                }
            }
            if d.endStream { ended = true }
        case .rstStream:
            ended = true
            throw HTTP2StreamError.reset
        default:
            break
        }
        return true
    }

    /// The header block that starts the message.
    public func readHeaders() async throws -> HPACKHeaders {
        while headers == nil {
            guard try await pull() else { throw HTTP2StreamError.noHeaders }
            if headers == nil, buffer.readableBytes > 0 { throw HTTP2StreamError.noHeaders }
        }
        return headers!
    }

    /// The next piece of the body, at most `max` bytes; empty when the body ended.
    public func next(max: Int) async throws -> [UInt8] {
        while buffer.readableBytes == 0 {
            guard try await pull() else { return [] }
        }
        let n = min(max, buffer.readableBytes)
        return buffer.readBytes(length: n) ?? []
    }

    /// The next piece of the body as a slice of what was received (no copy), at most `max` bytes;
    /// nil when the body ended.
    public func nextSlice(max: Int) async throws -> ByteBuffer? {
        while buffer.readableBytes == 0 {
            guard try await pull() else { return nil }
        }
        return buffer.readSlice(length: min(max, buffer.readableBytes))
    }

    /// `n` bytes, or fewer only when the body ended first (the reference's `bodyHead`).
    public func read(upTo n: Int) async throws -> [UInt8] {
        while buffer.readableBytes < n {
            guard try await pull() else { break }
        }
        return buffer.readBytes(length: min(n, buffer.readableBytes)) ?? []
    }
}
