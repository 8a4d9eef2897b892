import XFTPTransport

/// The rest of a request's HTTP/2 body after its command block (the chunk of FPUT), read in pieces
/// as the core asks for them.
struct HTTP2RequestBody: XFTPRequestBody {
    let reader: HTTP2StreamReader

    mutating func next(max: Int) async throws -> [UInt8] {
        try await reader.next(max: max)
    }
}
