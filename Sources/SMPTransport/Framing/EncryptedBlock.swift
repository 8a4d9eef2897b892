import SMPProtocol
import SimplexFoundation

/// The v11 encrypted transport block (`tPutBlock`/`tGetBlock` with `encryptBlock`): each block is
/// `secretbox(key, nonce, pad(payload, 16368))` = 16-byte tag ++ 16368 bytes, 16384 in all, with
/// a fresh key and nonce from the direction's secretbox chain.
public enum EncryptedBlock {
    /// Bytes of the padded payload inside an encrypted block.
    public static let paddedPayloadSize = TransportBlock.size - CryptoBox.tagLength
    /// The largest payload (after the 2-byte length, before padding).
    public static let maxPayload = paddedPayloadSize - 2

    /// The two chain keys of a connection (`blockEncryption`): `sbcInit sessionId dh`, where the
    /// server sends on the first and receives on the second, and the client the other way round.
    public static func chainKeys(sessionId: [UInt8], dhSecret: [UInt8], isServer: Bool)
        throws -> (send: SecretBoxChainKey, receive: SecretBoxChainKey) {
        let (ck1, ck2) = try SecretBoxChainKey.initial(salt: sessionId, secret: dhSecret)
        return isServer ? (ck1, ck2) : (ck2, ck1)
    }

    public static func seal(_ payload: [UInt8], chain: inout SecretBoxChainKey) throws -> [UInt8] {
        guard payload.count <= maxPayload else { throw TransportError.largeMessage }
        let (key, nonce) = try chain.next()
        return try CryptoBox.sbEncrypt(sbKey: key, nonce: nonce, message: payload, paddedLength: paddedPayloadSize)
    }

    /// Any failure (wrong size, bad tag, bad padding) is `LARGE_MSG`, as `tGetBlock` reports it.
    public static func open(_ block: [UInt8], chain: inout SecretBoxChainKey) throws(TransportError) -> [UInt8] {
        guard block.count == TransportBlock.size, let step = try? chain.next(),
              let payload = try? CryptoBox.sbDecrypt(sbKey: step.key, nonce: step.nonce, box: block)
        else { throw .largeMessage }
        return payload
    }

    /// `seal` over memory: `paddedPayload` (16368 bytes, already padded) sealed into `into`
    /// (16384 bytes) with the chain's next key; the key goes through crypto_box_beforenm as
    /// simplexmq's `sbEncrypt` does.
    public static func seal(paddedPayload: UnsafeRawBufferPointer, into: UnsafeMutableRawBufferPointer,
                            chain: inout SecretBoxChainKey) throws(TransportError) {
        guard paddedPayload.count == paddedPayloadSize, into.count == TransportBlock.size,
              let step = try? chain.next(), let key = try? CryptoBoxKey(dhSecret: step.key),
              (try? CryptoBox.seal(key: key, nonce: step.nonce, plaintext: paddedPayload, into: into)) != nil
        else { throw .largeMessage }
    }

    /// `open` over memory: the 16384-byte `block` opened into `into` (16368 bytes, still padded).
    public static func open(block: UnsafeRawBufferPointer, into: UnsafeMutableRawBufferPointer,
                            chain: inout SecretBoxChainKey) throws(TransportError) {
        guard block.count == TransportBlock.size, into.count == paddedPayloadSize,
              let step = try? chain.next(), let key = try? CryptoBoxKey(dhSecret: step.key),
              (try? CryptoBox.open(key: key, nonce: step.nonce, box: block, into: into)) != nil
        else { throw .largeMessage }
    }
}
