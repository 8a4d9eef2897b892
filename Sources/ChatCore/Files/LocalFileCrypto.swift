import Foundation
import SimplexFoundation
import XFTPProtocol

/// Local files kept encrypted (simplexmq Crypto/File.hs `CryptoFile`): one secretbox stream
/// over the whole content with the 16-byte tag at the end, no header or padding; the same
/// bytes the C ABI's `chat_write_file`/`chat_read_file` handle. Streamed in 64 KB pieces,
/// so files of any size never sit in memory.
enum LocalFileCrypto {
    static let block = 65536

    /// Fresh random arguments (`CF.randomArgs`): base64url key and nonce.
    static func randomArgs() -> CryptoFileArgs {
        CryptoFileArgs(fileKey: Base64URL.encode(SecureRandom.bytes(32)), fileNonce: Base64URL.encode(SecureRandom.bytes(24)))
    }

    static func keys(_ args: CryptoFileArgs) throws(XFTPFileError) -> ([UInt8], [UInt8]) {
        guard let key = Base64URL.decode(args.fileKey), key.count == 32,
              let nonce = Base64URL.decode(args.fileNonce), nonce.count == 24
        else { throw .crypto("invalid file key or nonce") }
        return (key, nonce)
    }

    /// Encrypts the plain file `from` into `to` (replaced).
    static func encrypt(from: String, to: String, _ args: CryptoFileArgs) throws(XFTPFileError) {
        try copy(from: from, nil, to: to, args)
    }

    /// Copies a local file from one protection to another (simplex-chat `copyCryptoFile`): read
    /// through `fromArgs` (tag checked at the end) and written under `toArgs`, either may be nil
    /// (plain). Nothing is left at `to` when it fails.
    static func copy(from: String, _ fromArgs: CryptoFileArgs?, to: String, _ toArgs: CryptoFileArgs?) throws(XFTPFileError) {
        var opener: SecretBoxStream?, sealer: SecretBoxStream?
        do {
            if let fromArgs { let (k, n) = try keys(fromArgs); opener = try SecretBoxStream(secret: k, nonce: n) }
            if let toArgs { let (k, n) = try keys(toArgs); sealer = try SecretBoxStream(secret: k, nonce: n) }
        } catch let e as XFTPFileError { throw e } catch { throw .crypto("\(error)") }
        guard let size = PosixFile.size(of: from) else { throw .io("cannot stat \(from)") }
        let tagSize: Int64 = opener == nil ? 0 : 16
        guard size >= tagSize else { throw .invalidHeader("FTCEInvalidFileSize") }
        let src = try PosixFile(path: from, mode: .read)
        let dst = try PosixFile(path: to, mode: .create)
        do throws(XFTPFileError) {
            var left = size - tagSize
            while left > 0 {
                var piece = try src.read(exactly: Int(min(left, Int64(block))))
                if opener != nil { piece.withUnsafeMutableBytes { opener!.decrypt(inPlace: $0) } }
                if sealer != nil { piece.withUnsafeMutableBytes { sealer!.encrypt(inPlace: $0) } }
                try dst.write(piece)
                left -= Int64(piece.count)
            }
            if opener != nil {
                let tag = try src.read(exactly: 16)
                guard opener!.verify(tag: tag) else { throw XFTPFileError.invalidAuthTag }
            }
            if sealer != nil { try dst.write(sealer!.tag()) }
            dst.sync()
        } catch {
            PosixFile.remove(to)
            throw error
        }
    }

    /// Decrypts the encrypted file `from` into `to`; nothing is left at `to` unless the tag verifies.
    static func decrypt(from: String, to: String, _ args: CryptoFileArgs) throws(XFTPFileError) {
        try copy(from: from, args, to: to, nil)
    }
}
