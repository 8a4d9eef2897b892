import SimplexFoundation

/// Any range of a file's encrypted stream, made again from the source: the bytes `encryptChunks`
/// produced there, without the tag's pass over everything before (XSalsa20 is a keystream). An
/// upload takes each chunk's digest in one hashing pass and encrypts the chunk again as FPUT sends
/// it, so no encrypted copy of a chunk is held while it waits for its server. Immutable, and its
/// reads are positioned (pread), so chunks in flight share one.
public final class EncryptedStreamReader: @unchecked Sendable {
    private let source: PosixFile
    private let stream: SecretBoxStream
    /// Length and header, encrypted: stream bytes `0..<prefix.count`.
    private let prefix: [UInt8]
    private let contentSize: Int64
    public let encryptedSize: Int64
    /// The source's size and modification time when the reader was made.
    private let fingerprint: [Int64]?

    public init(sourcePath: String, fileName: String, key: [UInt8], nonce: [UInt8], singleChunk: Bool = false) throws(XFTPFileError) {
        fingerprint = PosixFile.fingerprint(of: sourcePath)
        let (header, fileSize, sizes) = try FileEncryption.layout(sourcePath: sourcePath, fileName: fileName, singleChunk: singleChunk)
        source = try PosixFile(path: sourcePath, mode: .read)
        var sb = try FileEncryption.stream(key: key, nonce: nonce)
        stream = sb
        prefix = sb.encrypt(FileEncryption.prefix(header: header, contentSize: fileSize))
        contentSize = fileSize
        encryptedSize = sizes.reduce(Int64(0)) { $0 + Int64($1) }
    }

    /// False when the source's size or modification time changed since the reader was made: the
    /// bytes made now may differ from the ones hashed.
    public var sourceUnchanged: Bool { PosixFile.fingerprint(of: source.path) == fingerprint }

    /// Fills `dst` with the stream's bytes from `position`; `tag` (the last 16 bytes, known once
    /// the hashing pass ended) only when the range reaches it.
    public func fill(_ dst: UnsafeMutableRawBufferPointer, at position: Int64, tag: [UInt8]? = nil) throws(XFTPFileError) {
        guard let base = dst.baseAddress, dst.count > 0 else { return }
        guard position >= 0, position + Int64(dst.count) <= encryptedSize else { throw .io("range outside the encrypted file") }
        let contentStart = Int64(prefix.count), paddingStart = contentStart + contentSize
        let tagStart = encryptedSize - Int64(FileEncryption.authTagSize)
        var off = 0
        while off < dst.count {
            let q = position + Int64(off), room = dst.count - off
            if q < contentStart {
                let n = min(room, Int(contentStart - q))
                prefix.withUnsafeBytes { (base + off).copyMemory(from: $0.baseAddress! + Int(q), byteCount: n) }
                off += n
            } else if q < tagStart {
                let piece: UnsafeMutableRawBufferPointer
                if q < paddingStart {
                    let n = Int(min(Int64(room), paddingStart - q))
                    piece = UnsafeMutableRawBufferPointer(start: base + off, count: n)
                    guard try source.read(into: piece, at: q - contentStart) == n else { throw .io("encrypting file: unexpected EOF") }
                } else {
                    piece = UnsafeMutableRawBufferPointer(start: base + off, count: Int(min(Int64(room), tagStart - q)))
                    piece.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "#"))
                }
                stream.applyKeystream(at: q, piece)
                off += piece.count
            } else {
                guard let tag, tag.count == FileEncryption.authTagSize else { throw .io("the tag is not known yet") }
                let n = min(room, Int(encryptedSize - q))
                tag.withUnsafeBytes { (base + off).copyMemory(from: $0.baseAddress! + Int(q - tagStart), byteCount: n) }
                off += n
            }
        }
    }
}
