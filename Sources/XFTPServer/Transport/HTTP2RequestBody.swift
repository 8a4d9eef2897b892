import Foundation
import NIOCore
import XFTPTransport

/// The rest of a request's HTTP/2 body after its command block (the chunk of FPUT), read in pieces
/// as the core asks for them. The request's time limit is not here but around the whole request
/// (`XFTPRequestHandler.process`): a timer per read cost more than the bytes.
struct HTTP2RequestBody: XFTPRequestBody {
    let reader: HTTP2StreamReader

    struct Timeout: Error {}

    /// Up to `max` bytes (fewer only at the body's end).
    mutating func next(max: Int) async throws -> [UInt8] {
        try await reader.read(upTo: max)
    }

    /// What the next HTTP/2 frame brought (or its rest), up to `max` bytes.
    mutating func nextBuffer(max: Int) async throws -> ByteBuffer? {
        try await reader.nextSlice(max: max)
    }
}
