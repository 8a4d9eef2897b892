import Foundation
import XFTPTransport

/// The rest of a request's HTTP/2 body after its command block (the chunk of FPUT), read in pieces
/// as the core asks for them. Reading stops at the deadline (`fileTimeout` from the request's
/// start): a client that stalls mid-chunk gets TIMEOUT instead of holding the request.
struct HTTP2RequestBody: XFTPRequestBody {
    let reader: HTTP2StreamReader
    let deadline: Date

    struct Timeout: Error {}

    /// Gathers up to `max` bytes (fewer only at the body's end) under one time limit: a timer per
    /// HTTP/2 frame would cost more than the bytes.
    mutating func next(max: Int) async throws -> [UInt8] {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { throw Timeout() }
        let reader = reader
        return try await withTimeLimit(left, error: Timeout()) { try await reader.read(upTo: max) }
    }
}
