import ChatCore
import SimplexFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Local encrypted files as simplexmq's Crypto/File.hs writes them: XSalsa20-Poly1305 secretbox
// with a random 32-byte key and 24-byte nonce, the ciphertext first and the 16-byte Poly1305 tag
// at the end (`secretBoxTailTag`), no header and no padding. This build does each file in one
// piece in memory, so files are limited to `LocalFile.maxSize` (1 GiB).

enum LocalFile {
    static let maxSize = 1 << 30

    struct Failure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    static func ioError(_ path: String, _ op: String) -> Failure {
        Failure("\(path): \(op): \(String(cString: strerror(errno)))")
    }

    static func readAll(_ path: String) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError(path, "openFile") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ioError(path, "stat") }
        let size = Int(st.st_size)
        guard size <= maxSize else { throw Failure("\(path): file of \(size) bytes is larger than the \(maxSize)-byte limit of this build") }
        var out = [UInt8](repeating: 0, count: size)
        var got = 0
        while got < size {
            let n = out.withUnsafeMutableBytes { b in read(fd, b.baseAddress! + got, size - got) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError(path, "read")
            }
            if n == 0 { break }
            got += n
        }
        if got < size { out.removeLast(size - got) }
        return out
    }

    /// Writes the concatenation of `parts`, replacing the file.
    static func writeAll(_ path: String, _ parts: [ArraySlice<UInt8>]) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ioError(path, "openFile") }
        defer { close(fd) }
        for part in parts {
            var done = 0
            while done < part.count {
                let n = part.withUnsafeBytes { b in write(fd, b.baseAddress! + done, part.count - done) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ioError(path, "write")
                }
                done += n
            }
        }
    }

    /// Encrypts `plain` into `path` with a fresh key and nonce.
    static func writeEncrypted(_ path: String, _ plain: [UInt8]) throws(Failure) -> (key: [UInt8], nonce: [UInt8]) {
        guard plain.count <= maxSize else { throw Failure("\(plain.count) bytes is larger than the \(maxSize)-byte limit of this build") }
        let key = SecureRandom.bytes(SecretBox.keyLength), nonce = SecureRandom.bytes(SecretBox.nonceLength)
        // simplexmq's secretbox (`LC.sbInit`, the same as `C.sbEncrypt`: refvectors crypto_primitives.json
        // sbEncryptNoPad), which is not libsodium's crypto_secretbox: ciphertext, then the tag.
        var sb: SecretBoxStream
        do { sb = try SecretBoxStream(secret: key, nonce: nonce) } catch { throw Failure("FTCECryptoError \(error)") }
        let cipher = sb.encrypt(plain)
        try writeAll(path, [cipher[...], sb.tag()[...]])
        return (key, nonce)
    }

    /// Reads and decrypts the file at `path`; the key and nonce are base64url.
    static func readEncrypted(_ path: String, key keyStr: String, nonce nonceStr: String) throws(Failure) -> [UInt8] {
        guard let key = Base64URL.decode(keyStr), key.count == SecretBox.keyLength else { throw Failure("invalid file key") }
        guard let nonce = Base64URL.decode(nonceStr), nonce.count == SecretBox.nonceLength else { throw Failure("invalid file nonce") }
        let file = try readAll(path)
        guard file.count >= SecretBox.tagLength else { throw Failure("FTCEInvalidFileSize") }
        let n = file.count - SecretBox.tagLength
        var sb: SecretBoxStream
        do { sb = try SecretBoxStream(secret: key, nonce: nonce) } catch { throw Failure("FTCECryptoError \(error)") }
        let plain = sb.decrypt(Array(file[..<n]))
        guard sb.verify(tag: Array(file[n...])) else { throw Failure("FTCEInvalidAuthTag") }
        return plain
    }
}

/// simplex-chat `WriteFileResult`.
enum WriteFileResult: Encodable {
    case result(key: [UInt8], nonce: [UInt8])
    case error(String)

    struct CryptoArgs: Encodable {
        var fileKey: String
        var fileNonce: String
    }

    enum Keys: String, CodingKey { case type, cryptoArgs, writeError }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .result(let key, let nonce):
            try c.encode("result", forKey: .type)
            try c.encode(CryptoArgs(fileKey: Base64URL.encode(key), fileNonce: Base64URL.encode(nonce)), forKey: .cryptoArgs)
        case .error(let e):
            try c.encode("error", forKey: .type)
            try c.encode(e, forKey: .writeError)
        }
    }

    init(_ body: () throws(LocalFile.Failure) -> (key: [UInt8], nonce: [UInt8])) {
        do {
            let (k, n) = try body()
            self = .result(key: k, nonce: n)
        } catch {
            self = .error(error.message)
        }
    }

    var cString: CStrOut {
        Lib.cString((try? ChatJSON.string(self)) ?? #"{"type":"error","writeError":"encoding"}"#)
    }
}

/// `ctrl` only supplies randomness in simplex-chat; here any value (even NULL) is accepted.
@_cdecl("chat_write_file")
public func chat_write_file(_ ctrl: UnsafeMutableRawPointer?, _ path: CStr, _ data: UnsafeMutablePointer<CChar>?,
                            _ len: Int32) -> CStrOut {
    WriteFileResult { () throws(LocalFile.Failure) in
        guard let p = Lib.string(path), !p.isEmpty else { throw .init("empty or NULL path") }
        guard len >= 0 else { throw .init("negative length") }
        guard len == 0 || data != nil else { throw .init("NULL data") }
        let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(len))) } ?? []
        return try LocalFile.writeEncrypted(p, bytes)
    }.cString
}

@_cdecl("chat_encrypt_file")
public func chat_encrypt_file(_ ctrl: UnsafeMutableRawPointer?, _ fromPath: CStr, _ toPath: CStr) -> CStrOut {
    WriteFileResult { () throws(LocalFile.Failure) in
        guard let from = Lib.string(fromPath), !from.isEmpty, let to = Lib.string(toPath), !to.isEmpty else {
            throw .init("empty or NULL path")
        }
        return try LocalFile.writeEncrypted(to, LocalFile.readAll(from))
    }.cString
}

/// Answers "" on success or the error.
@_cdecl("chat_decrypt_file")
public func chat_decrypt_file(_ fromPath: CStr, _ key: CStr, _ nonce: CStr, _ toPath: CStr) -> CStrOut {
    do throws(LocalFile.Failure) {
        guard let from = Lib.string(fromPath), !from.isEmpty, let to = Lib.string(toPath), !to.isEmpty else {
            throw .init("empty or NULL path")
        }
        let plain = try LocalFile.readEncrypted(from, key: Lib.string(key) ?? "", nonce: Lib.string(nonce) ?? "")
        try LocalFile.writeAll(to, [plain[...]])
        return Lib.cString("")
    } catch {
        return Lib.cString(error.message)
    }
}

/// A malloc'd buffer: byte 0, a little-endian UInt32 length, then the plaintext; or byte 1 and a
/// NUL-terminated error message.
@_cdecl("chat_read_file")
public func chat_read_file(_ path: CStr, _ key: CStr, _ nonce: CStr) -> UnsafeMutablePointer<UInt8>? {
    do throws(LocalFile.Failure) {
        guard let p = Lib.string(path), !p.isEmpty else { throw .init("empty or NULL path") }
        let plain = try LocalFile.readEncrypted(p, key: Lib.string(key) ?? "", nonce: Lib.string(nonce) ?? "")
        guard let out = malloc(5 + plain.count)?.assumingMemoryBound(to: UInt8.self) else { throw .init("out of memory") }
        out[0] = 0
        withUnsafeBytes(of: UInt32(plain.count).littleEndian) { b in
            for i in 0..<4 { out[1 + i] = b[i] }
        }
        plain.withUnsafeBytes { b in
            if let base = b.baseAddress { memcpy(out + 5, base, b.count) }
        }
        return out
    } catch {
        let msg = Array(error.message.utf8).map { $0 == 0 ? UInt8(ascii: " ") : $0 }
        guard let out = malloc(msg.count + 2)?.assumingMemoryBound(to: UInt8.self) else { return nil }
        out[0] = 1
        for (i, c) in msg.enumerated() { out[1 + i] = c }
        out[1 + msg.count] = 0
        return out
    }
}
