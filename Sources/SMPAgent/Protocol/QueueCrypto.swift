import SMPProtocol
import SimplexFoundation

/// Why the per-queue encryption layer failed.
public enum QueueCryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The envelope or the decrypted message did not parse.
    case malformed(DecodingError)
    /// crypto_box failed: wrong key, tampering, or bad padding.
    case crypto(CryptoError)
    /// The message does not fit the padded size (`limit` is the room for the `ClientMessage`).
    case messageTooLarge(size: Int, limit: Int)
    /// A message without the sender's DH key arrived before the queue's key was agreed.
    case missingKey
    /// The message could not be encoded.
    case encoding(EncodingError)

    public var description: String {
        switch self {
        case .malformed(let e): "malformed queue message: \(e)"
        case .crypto(let e): "queue encryption: \(e)"
        case .messageTooLarge(let size, let limit): "message of \(size) bytes exceeds \(limit)"
        case .missingKey: "no per-queue key agreed yet"
        case .encoding(let e): "encoding: \(e)"
        }
    }
}

/// The per-queue e2e layer (simplex-messaging.md "SEND", simplexmq `agentCbEncrypt`): the
/// `ClientMessage` is padded to a fixed size and crypto_boxed with the queue's DH key, so every
/// message of a kind has the same length on the wire.
public enum QueueCrypto {
    /// Padded size of messages without the sender's DH key (simplexmq `e2eEncMessageLength`, 16000).
    public static let messagePaddedLength = 16000
    /// Padded size of confirmations, which carry the 44-byte DH key in clear (`e2eEncConfirmationLength`, 15904).
    public static let confirmationPaddedLength = 15904
    /// Largest SEND body every SMP version accepts (`maxMessageLength` from v11, 16048).
    public static let maxEnvelopeLength = SMPVersion.maxMessageLength

    /// Room for the encoded `ClientMessage` with or without the DH key in the header.
    public static func maxClientMessageLength(withDhKey: Bool) -> Int {
        (withDhKey ? confirmationPaddedLength : messagePaddedLength) - 2
    }

    /// Encrypts `message` with a random nonce into `smpEncMessage` bytes; `senderDhKey` goes in
    /// the clear header (confirmations) and selects the smaller padded size.
    public static func seal(_ message: ClientMessage, key: CryptoBoxKey, version: UInt16, senderDhKey: X25519PublicKey?)
        throws(QueueCryptoError) -> [UInt8]
    {
        let plain: [UInt8]
        do {
            plain = try message.smpEncoded()
        } catch let e as EncodingError {
            throw .encoding(e)
        } catch {
            throw .encoding(.tooLarge("\(error)"))
        }
        let limit = maxClientMessageLength(withDhKey: senderDhKey != nil)
        guard plain.count <= limit else { throw .messageTooLarge(size: plain.count, limit: limit) }
        let nonce = SecureRandom.bytes(CryptoBox.nonceLength)
        let box: [UInt8]
        do {
            box = try CryptoBox.cbEncrypt(key: key, nonce: nonce, message: plain, paddedLength: limit + 2)
        } catch {
            throw .crypto(error)
        }
        // The nonce has the right length, so the envelope always exists.
        guard let env = ClientMsgEnvelope(pubHeader: PubHeader(clientVersion: version, senderDhKey: senderDhKey), nonce: nonce, encryptedBody: box)
        else { throw .crypto(.badLength("nonce")) }
        do {
            return try env.smpEncoded()
        } catch {
            throw .encoding(.tooLarge("\(error)"))
        }
    }

    /// A confirmation to a queue whose DH key we only know from a link (contact requests,
    /// simplexmq `agentCbEncryptOnce`): a fresh X25519 key pair for this one message.
    public static func sealOnce(_ message: ClientMessage, recipientDhKey: X25519PublicKey, version: UInt16) throws(QueueCryptoError) -> [UInt8] {
        let ephemeral = X25519PrivateKey()
        let key: CryptoBoxKey
        do {
            key = try CryptoBox.sharedKey(publicKey: recipientDhKey, privateKey: ephemeral)
        } catch {
            throw .crypto(error)
        }
        return try seal(message, key: key, version: version, senderDhKey: ephemeral.publicKey)
    }

    /// Parses `bytes`, asks `key` for the key of this envelope (the recipient derives it from
    /// the header's DH key in confirmations), then decrypts. Throws `QueueCryptoError`, or what `key` throws.
    public static func open(_ bytes: [UInt8], key: (ClientMsgEnvelope) throws -> CryptoBoxKey) throws -> (ClientMsgEnvelope, ClientMessage) {
        let env: ClientMsgEnvelope
        do {
            env = try ClientMsgEnvelope.decode(bytes)
        } catch {
            throw QueueCryptoError.malformed(error)
        }
        let k = try key(env)
        return (env, try env.open(key: k))
    }

    /// The recipient's side in one call: the key comes from the header's DH key and our queue
    /// DH key, or is the one agreed earlier. Returns the key used, to keep after a confirmation.
    public static func open(_ bytes: [UInt8], recipientDhKey: X25519PrivateKey, agreedKey: CryptoBoxKey?)
        throws(QueueCryptoError) -> (envelope: ClientMsgEnvelope, message: ClientMessage, key: CryptoBoxKey)
    {
        let env: ClientMsgEnvelope
        do {
            env = try ClientMsgEnvelope.decode(bytes)
        } catch {
            throw .malformed(error)
        }
        let key: CryptoBoxKey
        if let dh = env.senderDhKey {
            do {
                key = try CryptoBox.sharedKey(publicKey: dh, privateKey: recipientDhKey)
            } catch {
                throw .crypto(error)
            }
        } else if let agreedKey {
            key = agreedKey
        } else {
            throw .missingKey
        }
        return (env, try env.open(key: key), key)
    }
}
