import SimplexFoundation

/// The two encryption layers of private message routing (simplexmq `proxySMPCommand`,
/// `forwardSMPTransmission` and the relay's `processForwardedCommand`), as pure functions the
/// client, the proxying relay and the destination relay share.
///
/// - s2r (client and destination): crypto_box with dh(destination session key, per-command
///   client key); the PFWD corrId is the nonce, its byte reversal the nonce of the response; the
///   one-transmission batch is padded to `paddedTransmissionLength` both ways.
/// - p2r (proxy and destination): crypto_box with the session secret of their connection
///   (dh of the keys exchanged in the handshake); the RFWD corrId is the nonce, reversed for RRES;
///   no padding (what it wraps is already padded).
public enum PrivateRouting {
    /// `paddedProxiedTLength`: the padded size of forwarded transmissions and responses. The spec
    /// says 16242; the reference code uses 16226, and the code is what peers decrypt.
    public static let paddedTransmissionLength = 16226

    /// `reverseNonce`: the response nonce is the request's 24-byte nonce reversed.
    public static func reverseNonce<C: Collection>(_ nonce: C) -> [UInt8] where C.Element == UInt8 {
        Array(CryptoBox.nonce(from: nonce).reversed())
    }

    /// `cbNonce` of a corrId: 24 bytes, truncated or zero-padded.
    public static func nonce<C: Collection>(_ corrId: C) -> [UInt8] where C.Element == UInt8 {
        CryptoBox.nonce(from: corrId)
    }

    /// The one-transmission batch (`batchTransmissions` of a single `tEncode`): count 1, then
    /// the transmission as a Large string.
    public static func singleBatch(_ transmission: [UInt8]) throws -> [UInt8] {
        guard TransmissionBatch.cost(of: transmission) <= TransmissionBatch.capacity else { throw TransportError.largeMessage }
        var e = SMPEncoder(capacity: transmission.count + 3)
        e.byte(1)
        try e.largeString(transmission)
        return e.bytes
    }

    // MARK: s2r, client and destination

    /// Client: the `EncTransmission` of PFWD, from the transmission's `tEncode` bytes.
    public static func encryptTransmission(_ transmission: [UInt8], key: CryptoBoxKey, corrId: [UInt8]) throws -> [UInt8] {
        try CryptoBox.cbEncrypt(key: key, nonce: nonce(corrId), message: singleBatch(transmission), paddedLength: paddedTransmissionLength)
    }

    /// Destination: the batch bytes of a client's `EncTransmission` (unpadded, not yet split).
    public static func decryptTransmission(_ encrypted: [UInt8], key: CryptoBoxKey, corrId: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoBox.cbDecrypt(key: key, nonce: nonce(corrId), box: encrypted)
    }

    /// Destination: the `EncResponse` to the client, from the response's `tEncode` bytes.
    public static func encryptResponse(_ transmission: [UInt8], key: CryptoBoxKey, corrId: [UInt8]) throws -> [UInt8] {
        try CryptoBox.cbEncrypt(key: key, nonce: reverseNonce(corrId), message: singleBatch(transmission), paddedLength: paddedTransmissionLength)
    }

    /// Client: the batch bytes of an `EncResponse` from PRES.
    public static func decryptResponse(_ encrypted: [UInt8], key: CryptoBoxKey, corrId: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoBox.cbDecrypt(key: key, nonce: reverseNonce(corrId), box: encrypted)
    }

    // MARK: p2r, proxy and destination

    /// Proxy: the `EncFwdTransmission` of RFWD (`cbEncryptNoPad`).
    public static func sealForwarded(_ t: FwdTransmission, sessionSecret: CryptoBoxKey, corrId: [UInt8]) throws -> [UInt8] {
        try CryptoBox.seal(key: sessionSecret, nonce: nonce(corrId), plaintext: t.smpEncoded())
    }

    /// Destination: the `FwdTransmission` bytes inside RFWD.
    public static func openForwarded(_ box: [UInt8], sessionSecret: CryptoBoxKey, corrId: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoBox.open(key: sessionSecret, nonce: nonce(corrId), box: box)
    }

    /// Destination: the `EncFwdResponse` of RRES.
    public static func sealForwardedResponse(_ r: FwdResponse, sessionSecret: CryptoBoxKey, corrId: [UInt8]) throws -> [UInt8] {
        try CryptoBox.seal(key: sessionSecret, nonce: reverseNonce(corrId), plaintext: r.smpEncoded())
    }

    /// Proxy: the `FwdResponse` bytes inside RRES.
    public static func openForwardedResponse(_ box: [UInt8], sessionSecret: CryptoBoxKey, corrId: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoBox.open(key: sessionSecret, nonce: reverseNonce(corrId), box: box)
    }
}
