import COpenSSL
import Foundation
import SMPTransport
import SMPProtocol
import SimplexFoundation

/// The work every SEND -> MSG delivery must do whatever the relay's design (the SMP spec asks for
/// it), timed single-threaded in this process: signatures over the whole transmission, the
/// relay's crypto_box of the padded MSG body, the store log checksum, and TLS for the blocks.
/// Dividing the cores by its sum gives a ceiling for deliveries/s on this machine.
public enum CryptoFloor {
    /// Blocks the floor counts per delivery: SEND and MSG (16 KB each, a block each); the small
    /// OK, ACK and OK can ride in blocks other transmissions fill.
    public static let blocksPerDelivery = 2

    public struct Item: Sendable {
        public let name: String
        public let micros: Double
        public init(name: String, micros: Double) {
            self.name = name
            self.micros = micros
        }
    }

    public struct Result {
        public let items: [Item]
        /// The 5 blocks a delivery moves when nothing shares a block (SEND, OK, MSG, ACK, OK)
        /// through this build's whole transport stack, from the echo rate (an echo is 2 blocks):
        /// shown beside the floor, not part of it.
        public let echoDerivedTransportMicros: Double
        public var totalMicros: Double { items.reduce(0) { $0 + $1.micros } }
        public func ceiling(cores: Int) -> Double { Double(cores) * 1e6 / totalMicros }
        /// Prints each item as `     name ....  12.3 us`, the benchmarks' floor listing.
        public func printItems(nameWidth: Int) {
            for item in items {
                print("     " + item.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + String(format: "%7.1f us", item.micros))
            }
        }
        public init(items: [Item], echoDerivedTransportMicros: Double) {
            self.items = items
            self.echoDerivedTransportMicros = echoDerivedTransportMicros
        }
    }

    /// `senderAuth` and `recipientAuth` are the key types the clients use for SEND and ACK:
    /// `.ed25519` signs, `.x25519` makes a DH authenticator whose DH the session caches (SMP v7+).
    public static func measure(bodySize: Int, echoBlocksPerSecond: Double, cores: Int, senderAuth: KeyAlgorithm = .ed25519,
                               recipientAuth: KeyAlgorithm = .ed25519) throws -> Result {
        let sessionId = SecureRandom.bytes(32), corrId = SecureRandom.bytes(24), entity = SecureRandom.bytes(24)
        let body = SecureRandom.bytes(bodySize)
        let sendBody = try SMPCommand.send(flags: MsgFlags(notification: true), body: body).smpEncoded()
        let sendAuthorized = try RawTransmission.authorizedBytes(sessionId: sessionId, corrId: corrId, entityId: entity, body: sendBody)
        let ackBody = try SMPCommand.ack(msgId: SecureRandom.bytes(24)).smpEncoded()
        let ackAuthorized = try RawTransmission.authorizedBytes(sessionId: sessionId, corrId: corrId, entityId: entity, body: ackBody)
        let boxKey = try CryptoBox.sharedKey(publicKey: X25519PrivateKey().publicKey, privateKey: X25519PrivateKey())
        let msgId = SecureRandom.bytes(24)
        let plain = try RcvMessageBody.message(timestamp: 1_700_000_000, flags: MsgFlags(notification: true), body: body).smpEncoded()
        let box = try CryptoBox.cbEncrypt(key: boxKey, nonce: msgId, message: plain, paddedLength: RcvMessageBody.paddedLength)
        // A store log record of the message (its body plus ~70 bytes of IDs and header) and of the ACK.
        let messageRecord = [UInt8](repeating: 0x4D, count: bodySize + 70), ackRecord = [UInt8](repeating: 0x41, count: 49)

        var items: [Item] = []
        func time(_ name: String, _ op: () throws -> Void) rethrows {
            items.append(Item(name: name, micros: try bestMicros(op)))
        }
        /// The client's authorization of `command` and the relay's check of it, as `algorithm` does them.
        func timeAuthorization(_ command: String, _ authorized: [UInt8], _ algorithm: KeyAlgorithm, size: String?) throws {
            if algorithm == .x25519 {
                let queueKey = X25519PrivateKey(), serverKey = X25519PrivateKey()
                let clientBox = try CryptoBox.sharedKey(publicKey: serverKey.publicKey, privateKey: queueKey)
                let serverBox = try CryptoBox.sharedKey(publicKey: queueKey.publicKey, privateKey: serverKey)
                let nonce = TransmissionAuth.cbNonce(corrId)
                let authenticator = try SMPAuthenticator.authenticate(authorized: authorized, nonce: nonce, key: clientBox)
                try time("client: X25519 authenticator \(command) (\(size.map { "\($0), " } ?? "")DH cached)") {
                    _ = try SMPAuthenticator.authenticate(authorized: authorized, nonce: nonce, key: clientBox)
                }
                time("relay: X25519 authenticator verify \(command) (DH cached)") {
                    precondition(SMPAuthenticator.verify(authenticator, authorized: authorized, nonce: nonce, key: serverBox))
                }
            } else {
                let key = Ed25519PrivateKey()
                let signature = try key.sign(authorized), publicKey = AnyPublicKey.ed25519(key.publicKey)
                try time("client: Ed25519 sign \(command)\(size.map { " (\($0))" } ?? "")") { _ = try key.sign(authorized) }
                time("relay: Ed25519 verify \(command)") { precondition(publicKey.isValidSignature(signature, for: authorized)) }
            }
        }
        try timeAuthorization("SEND", sendAuthorized, senderAuth, size: "\(sendAuthorized.count) B")
        time("relay: store log CRC32 of the message record") { _ = CRC32.checksum(messageRecord) }
        try time("relay: crypto_box seal MSG (\(RcvMessageBody.paddedLength) B padded)") {
            _ = try CryptoBox.cbEncrypt(key: boxKey, nonce: msgId, message: plain, paddedLength: RcvMessageBody.paddedLength)
        }
        try time("client: crypto_box open MSG") { _ = try CryptoBox.cbDecrypt(key: boxKey, nonce: msgId, box: box) }
        try timeAuthorization("ACK", ackAuthorized, recipientAuth, size: nil)
        time("relay: store log CRC32 of the ACK record") { _ = CRC32.checksum(ackRecord) }
        // Per block, whoever sends and receives it: a TLS 1.3 record (ChaCha20-Poly1305, as the
        // SMP TLS settings allow only that) sealed and opened, and from v11 the block's secretbox
        // chain step, seal and open. A delivery's SEND and MSG each fill a block of their own;
        // its OK, ACK and OK are small and may share blocks with other transmissions (SMP
        // batches), so the least a delivery moves is 2 blocks, which the floor counts.
        let blocks = Self.blocksPerDelivery
        let record = SecureRandom.bytes(TransportBlock.size)
        let aead = try TLSRecordCipher()
        time("TLS 1.3 records: ChaCha20-Poly1305 seal + open, \(blocks) blocks") {
            for _ in 0..<blocks { aead.sealAndOpen(record) }
        }
        var chains = try EncryptedBlock.chainKeys(sessionId: sessionId, dhSecret: SecureRandom.bytes(32), isServer: true)
        var peer = chains
        swap(&peer.send, &peer.receive)
        let payload = SecureRandom.bytes(EncryptedBlock.maxPayload)
        try time("v11 blocks: secretbox chain step, seal + open, \(blocks) blocks") {
            for _ in 0..<blocks {
                let b = try EncryptedBlock.seal(payload, chain: &chains.send)
                _ = try EncryptedBlock.open(b, chain: &peer.receive)
            }
        }
        // What the transport costs in this build, for comparison (not part of the floor): the
        // echo's CPU per block pair, assuming it kept all cores busy.
        let echoDerived = 2.5 * Double(cores) * 1e6 / echoBlocksPerSecond
        return Result(items: items, echoDerivedTransportMicros: echoDerived)
    }
}

/// ChaCha20-Poly1305 as a TLS 1.3 record layer uses it (OpenSSL EVP, the library our TLS runs
/// on), for the floor: one seal and one open of a 16 KB record.
public final class TLSRecordCipher {
    private let ctx: OpaquePointer
    private let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(12)
    private var sealed: [UInt8]
    private var opened: [UInt8]
    private var tag = [UInt8](repeating: 0, count: 16)

    public init() throws {
        guard let c = EVP_CIPHER_CTX_new() else { throw CryptoError.badLength("EVP_CIPHER_CTX_new") }
        ctx = c
        sealed = [UInt8](repeating: 0, count: TransportBlock.size + 32)
        opened = sealed
    }

    deinit { EVP_CIPHER_CTX_free(ctx) }

    public func sealAndOpen(_ record: [UInt8]) {
        var n: Int32 = 0
        var len: Int32 = 0
        sealed.withUnsafeMutableBufferPointer { out in
            EVP_EncryptInit_ex(ctx, EVP_chacha20_poly1305(), nil, key, nonce)
            EVP_EncryptUpdate(ctx, out.baseAddress, &n, record, Int32(record.count))
            len = n
            EVP_EncryptFinal_ex(ctx, out.baseAddress! + Int(len), &n)
        }
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, &tag)
        let ok = opened.withUnsafeMutableBufferPointer { out -> Bool in
            EVP_DecryptInit_ex(ctx, EVP_chacha20_poly1305(), nil, key, nonce)
            EVP_DecryptUpdate(ctx, out.baseAddress, &n, sealed, len)
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, &tag)
            return EVP_DecryptFinal_ex(ctx, out.baseAddress! + Int(n), &n) == 1
        }
        precondition(ok)
    }
}

extension CryptoFloor {
    /// Microseconds per call of `op`: the best of 5 batches of >= 40 ms (other work on a shared
    /// machine only ever adds time).
    public static func bestMicros(_ op: () throws -> Void) rethrows -> Double {
        try op()  // warm up
        var best = Double.infinity
        for _ in 0..<5 {
            var n = 0
            let start = floorNanos()
            while floorNanos() - start < 40_000_000 || n < 5 {
                try op()
                n += 1
            }
            best = min(best, Double(floorNanos() - start) / 1e3 / Double(n))
        }
        return best
    }
}

/// Monotonic nanoseconds, for the timings above.
func floorNanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// User + system CPU time of this process (all threads), in microseconds: unlike a rate, it
/// hardly moves when other work shares the machine.
public func processCPUMicros() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func micros(_ t: timeval) -> Double { Double(t.tv_sec) * 1e6 + Double(t.tv_usec) }
    return micros(usage.ru_utime) + micros(usage.ru_stime)
}
