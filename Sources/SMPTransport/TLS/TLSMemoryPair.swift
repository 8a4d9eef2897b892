import CSimplexTLS

/// A client and a server TLS connection joined in memory (every byte one sends is fed to the
/// other), for measuring record costs without sockets and for testing the record layers.
public final class TLSMemoryPair {
    public let serverContext: TLSContext
    public let clientContext: TLSContext
    public let server: OpaquePointer
    public let client: OpaquePointer
    /// Reused for every transfer, so measuring records measures no allocation.
    private var wire = [UInt8](repeating: 0, count: 1 << 20)

    /// Fresh connections of `clientConfiguration` (certificates not checked) to a server of
    /// `credentials`.
    public init(credentials: ServerCredentials, clientConfiguration: TLSConfiguration = .smp) throws {
        serverContext = try TLSContext(serverChain: credentials.chain, privateKeyPKCS8: credentials.serverPrivateKey.pkcs8Encoded)
        clientContext = try TLSContext(clientConfiguration: clientConfiguration)
        guard let s = sxtls_conn_new(serverContext.pointer) else { throw TLSError.configuration("SSL_new failed") }
        guard let c = sxtls_conn_new(clientContext.pointer) else {
            sxtls_conn_free(s)
            throw TLSError.configuration("SSL_new failed")
        }
        server = s
        client = c
        sxtls_conn_set_verify(client, { _, _, _, _ in 1 }, nil)
    }

    deinit {
        sxtls_conn_free(server)
        sxtls_conn_free(client)
    }

    /// Moves everything `from` has to send into `to`, each piece passed through `tamper` first;
    /// returns the bytes moved.
    @discardableResult
    public func pump(_ from: OpaquePointer, _ to: OpaquePointer, tamper: ((inout [UInt8]) -> Void)? = nil) -> Int {
        var moved = 0
        while sxtls_conn_pending(from) > 0 {
            let n = Int(sxtls_conn_drain(from, &wire, wire.count))
            guard n > 0 else { break }
            if let tamper {
                var piece = Array(wire[0..<n])
                tamper(&piece)
                _ = sxtls_conn_feed(to, piece, piece.count)
            } else {
                _ = sxtls_conn_feed(to, wire, n)
            }
            moved += n
        }
        return moved
    }

    /// Runs both handshakes to completion.
    public func handshake() throws {
        var done = (client: Int32(0), server: Int32(0))
        for _ in 0..<10 where done.client != 1 || done.server != 1 {
            done.client = sxtls_conn_handshake(client)
            pump(client, server)
            done.server = sxtls_conn_handshake(server)
            pump(server, client)
        }
        guard done.client == 1, done.server == 1 else { throw TLSError.handshake("in-memory handshake did not complete") }
    }
}
