// Module SMPTransport: the transport layer of SMP ("Transport connection with the SMP server" in
// simplex-messaging.md): server credentials and identity, TLS 1.3 with fingerprint pinning,
// 16384-byte block framing and the SMP transport handshake, for both the server and the client.
//
// Layering: below it SimplexFoundation (encodings) and SMPProtocol (versions, TransportError);
// above it SMPServer and SMPClient, which meet it at two seams:
// - `SMPTransportServer.start(..., handler:)`: the factory gets an `SMPServerSession` and returns
//   the handler that reads and writes 16384-byte `ByteBuffer` blocks of one connection.
// - `SMPTransportClient.connect(...)`: returns the channel (TLS + framing, handshake done) and an
//   `SMPClientSession`; the client's handler reads and writes the same blocks.
