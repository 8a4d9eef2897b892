// Module SMPTransport: the transport layer of SMP ("Transport connection with the SMP server" in
// simplex-messaging.md, byte for byte as simplexmq 6.5.5.0's Transport.hs): server credentials and
// identity (Ed25519/Ed448 X.509 via OpenSSL), TLS 1.3/1.2 on the system OpenSSL through memory
// BIOs (CSimplexTLS), 16384-byte block framing, the SMP transport handshake of versions 6-18 with
// tls-unique session IDs, and the v11 encrypted blocks, for both the server and the client.
//
// Layering: below it SimplexFoundation (encodings, crypto), SMPProtocol (versions, TransportError)
// and CSimplexTLS; above it SMPServer and SMPClient, which meet it at two seams:
// - `SMPTransportServer.start(..., handler:)`: the factory gets an `SMPServerSession` and returns
//   the handler that reads and writes padded 16384-byte `ByteBuffer` blocks of one connection.
// - `SMPTransportClient.connect(...)`: returns the channel (TLS + framing, handshake done) and an
//   `SMPClientSession`; the client's handler reads and writes the same blocks.
// Block encryption (v11+) happens below both seams: the upper layers always see plain padded
// blocks, whose payload must then fit 16366 bytes.
