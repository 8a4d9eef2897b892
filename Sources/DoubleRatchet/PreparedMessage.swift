import SimplexFoundation

/// A ratchet message whose keys are fixed but whose body is not sealed yet: the encrypted
/// header, the message key and IV, and the plaintext. Sealing it is deterministic (AES-GCM with
/// its own key and IV), so an agent can store this small form for a queued message and produce
/// the same 16 KB ciphertext when it sends, instead of writing the ciphertext to its database.
public struct PreparedMessage: Sendable, Equatable {
    public let version: UInt16
    let header: [UInt8]
    let messageKey: [UInt8]
    let iv: [UInt8]
    let associatedData: [UInt8]
    public let plaintext: [UInt8]
    public let paddedLength: Int

    /// `rcEncryptMsg` with the prepared keys: the bytes `Ratchet.encrypt` returns.
    public func sealed() throws(RatchetError) -> [UInt8] {
        let body: (ciphertext: [UInt8], tag: [UInt8])
        do {
            body = try AESGCM.encryptAEAD(key: messageKey, iv: iv, paddedLength: paddedLength, aad: associatedData + header, message: plaintext)
        } catch {
            throw .messageTooLarge  // AES-GCM with checked key/IV sizes fails only on padding
        }
        return try EncryptedMessage(header: header, tag: body.tag, body: body.ciphertext).encoded(version: version)
    }

    /// Storage form: `1 version(2) paddedLength(4) header key iv ad plaintext`, each of the
    /// variable parts with a 4-byte length.
    public func serialized() -> [UInt8] {
        var e = SMPEncoder(capacity: 32 + header.count + messageKey.count + iv.count + associatedData.count + plaintext.count)
        e.byte(1)
        e.word16(version)
        e.word32(UInt32(paddedLength))
        for part in [header, messageKey, iv, associatedData, plaintext] {
            e.word32(UInt32(part.count))
            e.raw(part)
        }
        return e.bytes
    }

    public init(serialized bytes: [UInt8]) throws(RatchetError) {
        var d = SMPDecoder(bytes)
        let format = try wrap { try d.byte() }
        guard format == 1 else { throw .badEncoding("prepared message format \(format)") }
        version = try wrap { try d.word16() }
        paddedLength = Int(try wrap { try d.word32() })
        func part() throws(RatchetError) -> [UInt8] {
            let n = Int(try wrap { try d.word32() })
            return try wrap { try d.take(n) }
        }
        header = try part()
        messageKey = try part()
        iv = try part()
        associatedData = try part()
        plaintext = try part()
        guard d.isAtEnd, messageKey.count == AESGCM.keyLength, iv.count == AESGCM.ivLength else {
            throw .badEncoding("prepared message")
        }
    }

    init(version: UInt16, header: [UInt8], messageKey: [UInt8], iv: [UInt8], associatedData: [UInt8], plaintext: [UInt8], paddedLength: Int) {
        self.version = version
        self.header = header
        self.messageKey = messageKey
        self.iv = iv
        self.associatedData = associatedData
        self.plaintext = plaintext
        self.paddedLength = paddedLength
    }
}
