import Foundation
import SimplexFoundation
@testable import XFTPProtocol

/// The file forms the reference agent uses (an encrypted work file, chunk files), made from the
/// in-memory encryption and decryptor the client uses: the tests check the bytes through them.
extension FileEncryption {
    /// Encrypts `sourcePath` into the encrypted file `encryptedPath`.
    static func encrypt(sourcePath: String, fileName: String, key: [UInt8], nonce: [UInt8],
                        encryptedPath: String) throws -> EncryptedFile {
        let sizes = try chunkSizes(sourcePath: sourcePath, fileName: fileName)
        let dst = try PosixFile(path: encryptedPath, mode: .create)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, Int(sizes.max() ?? 0)), alignment: 64)
        defer { buffer.deallocate() }
        return try encryptChunks(sourcePath: sourcePath, fileName: fileName, key: key, nonce: nonce,
                                 memory: { _ in buffer },
                                 onChunk: { i, _ throws(XFTPFileError) in
                                     try dst.write(UnsafeRawBufferPointer(rebasing: buffer[0..<Int(sizes[i])]))
                                 })
    }

    /// Decrypts chunk files (in order) to the path `destination` gives for the header.
    static func decrypt(chunkPaths: [String], encryptedSize: Int64, key: [UInt8], nonce: [UInt8],
                        destination: @escaping (FileHeader) throws -> String) throws -> (header: FileHeader, path: String) {
        let d = try FileDecryptor(encryptedSize: encryptedSize, key: key, nonce: nonce, destination: destination)
        do {
            for p in chunkPaths {
                var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: p)))
                try d.feed(&bytes)
            }
        } catch {
            d.abort()
            throw error
        }
        return try d.finish()
    }
}
