import COpenSSL

/// The few EVP calls that X448 and Ed448 need from the system OpenSSL. Private keys live in a
/// `PrivateKeyHandle`; every other EVP object is created and freed within one call, and every
/// failure drains the thread's OpenSSL error queue into a `CryptoError` instead of trapping.
enum OpenSSLEVP {
    enum KeyType {
        case x448, ed448

        var id: Int32 {
            switch self {
            case .x448: EVP_PKEY_X448
            case .ed448: EVP_PKEY_ED448
            }
        }
    }

    /// Drains OpenSSL's per-thread error queue into one message.
    static func error(_ what: String) -> CryptoError {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buf = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buf, buf.count)
            let bytes = buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
            messages.append(String(decoding: bytes, as: UTF8.self))
        }
        return .openssl(messages.isEmpty ? what : "\(what): \(messages.joined(separator: "; "))")
    }

    /// Runs `body` with a pointer to `bytes` that is never NULL, even for an empty array
    /// (OpenSSL rejects NULL message pointers in some paths).
    static func withNonNullPointer<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) throws(CryptoError) -> R) throws(CryptoError) -> R {
        if bytes.isEmpty {
            var dummy: UInt8 = 0
            return try body(&dummy, 0)
        }
        let r: Result<R, CryptoError> = bytes.withUnsafeBufferPointer { buf in
            do throws(CryptoError) { return .success(try body(buf.baseAddress!, buf.count)) } catch { return .failure(error) }
        }
        return try r.get()
    }

    static func withPublicKey<R>(_ type: KeyType, _ raw: [UInt8], _ body: (OpaquePointer) throws(CryptoError) -> R) throws(CryptoError) -> R {
        let pkey = raw.withUnsafeBufferPointer { EVP_PKEY_new_raw_public_key(type.id, nil, $0.baseAddress, $0.count) }
        guard let pkey else { throw error("invalid public key") }
        defer { EVP_PKEY_free(pkey) }
        return try body(pkey)
    }

    /// Raw public key of a private key.
    static func publicKey(_ key: PrivateKeyHandle, length: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var len = length
        guard EVP_PKEY_get_raw_public_key(key.pkey, &out, &len) == 1, len == length else {
            throw error("get raw public key")
        }
        return out
    }

    /// Raw shared secret of a key agreement (X448). OpenSSL rejects an all-zero result.
    static func derive(_ type: KeyType, privateKey: PrivateKeyHandle, publicKey: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        try withPublicKey(type, publicKey) { peer throws(CryptoError) in
            guard let ctx = EVP_PKEY_CTX_new(privateKey.pkey, nil) else { throw error("EVP_PKEY_CTX_new") }
            defer { EVP_PKEY_CTX_free(ctx) }
            guard EVP_PKEY_derive_init(ctx) == 1 else { throw error("derive init") }
            guard EVP_PKEY_derive_set_peer(ctx, peer) == 1 else { throw error("derive set peer") }
            var out = [UInt8](repeating: 0, count: length)
            var len = length
            guard EVP_PKEY_derive(ctx, &out, &len) == 1, len == length else { throw error("derive") }
            return out
        }
    }

    /// One-shot signature (Ed448: EVP_DigestSign with a NULL digest, empty context string).
    static func sign(privateKey: PrivateKeyHandle, message: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard let md = EVP_MD_CTX_new() else { throw error("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_DigestSignInit(md, nil, nil, nil, privateKey.pkey) == 1 else { throw error("sign init") }
        var sig = [UInt8](repeating: 0, count: length)
        var len = length
        try withNonNullPointer(message) { p, n throws(CryptoError) in
            guard EVP_DigestSign(md, &sig, &len, p, n) == 1, len == length else { throw error("sign") }
        }
        return sig
    }

    /// One-shot verification; any failure (bad key, bad signature) is `false`.
    static func verify(_ type: KeyType, publicKey: [UInt8], signature: [UInt8], message: [UInt8]) -> Bool {
        let ok = try? withPublicKey(type, publicKey) { pkey throws(CryptoError) -> Bool in
            guard let md = EVP_MD_CTX_new() else { throw error("EVP_MD_CTX_new") }
            defer { EVP_MD_CTX_free(md) }
            guard EVP_DigestVerifyInit(md, nil, nil, nil, pkey) == 1 else { throw error("verify init") }
            return try withNonNullPointer(signature) { s, sn throws(CryptoError) in
                try withNonNullPointer(message) { m, mn throws(CryptoError) in
                    EVP_DigestVerify(md, s, sn, m, mn) == 1
                }
            }
        }
        ERR_clear_error()
        return ok ?? false
    }
}

/// An OpenSSL private key object, built once per key (OpenSSL derives the public key then, which
/// costs a scalar multiplication) and freed with the last reference. OpenSSL 3 allows concurrent
/// read-only use of one EVP_PKEY (derive, sign) from many threads, and the pointer never changes.
final class PrivateKeyHandle: @unchecked Sendable {
    let pkey: OpaquePointer

    init(_ type: OpenSSLEVP.KeyType, raw: [UInt8]) throws(CryptoError) {
        let pkey = raw.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key(type.id, nil, $0.baseAddress, $0.count) }
        guard let pkey else { throw OpenSSLEVP.error("invalid private key") }
        self.pkey = pkey
    }

    deinit { EVP_PKEY_free(pkey) }
}
