import SimplexFoundation

/// XFTP file encryption (`Simplex.FileTransfer.Crypto`): one secretbox stream over
/// `length(8) ++ header ++ content ++ '#' padding`, the 16-byte tag at the very end; the
/// encrypted file is then cut into server chunk sizes.
public enum FileEncryption {
    public static let authTagSize = 16
    /// The 8-byte length prefix (`fileSizeLen`).
    public static let lengthSize = 8
    /// Read and write size of file passes: below the 128 KB mmap threshold (see MemoryTuning), so
    /// the buffers come from the heap instead of fresh zeroed pages each time.
    static let ioBlock = 65_536

    /// What encrypting a file produced: sizes, digests and where each chunk lies.
    public struct EncryptedFile: Sendable {
        public var encryptedSize: Int64
        /// SHA-512 of the whole encrypted file (the description's `digest`).
        public var digest: [UInt8]
        public var chunks: [(offset: Int64, size: UInt32, digest: [UInt8])]
    }

    /// Encrypts `sourcePath` to `encryptedPath` the way the reference agent prepares an upload:
    /// the header carries `fileName`, chunk sizes come from `XFTPChunkSizes.prepare` (or one chunk
    /// for a redirect description), and chunk digests (SHA-256) are computed as it writes.
    /// The chunk sizes `encrypt` will cut the file into (known before encrypting, so uploads can
    /// be planned while it runs).
    public static func chunkSizes(sourcePath: String, fileName: String, singleChunk: Bool = false) throws(XFTPFileError) -> [UInt32] {
        guard let fileSize = PosixFile.size(of: sourcePath) else { throw .io("cannot stat \(sourcePath)") }
        guard fileSize <= FileDescription.maxFileSizeHard else { throw .size }
        let header: [UInt8]
        do {
            header = try FileHeader(fileName: fileName).encoded()
        } catch {
            throw .invalidHeader("file name too long")
        }
        let payloadSize = Int64(header.count) + fileSize + Int64(lengthSize + authTagSize)
        if singleChunk {
            guard let s = XFTPChunkSizes.singleChunkSize(payloadSize) else { throw .size }
            return [s]
        }
        return XFTPChunkSizes.prepare(payloadSize)
    }

    /// `onChunk(index, digest)` is called as soon as each chunk is completely written, so it can
    /// be uploaded while the rest is encrypted.
    public static func encrypt(
        sourcePath: String, fileName: String, key: [UInt8], nonce: [UInt8], encryptedPath: String, singleChunk: Bool = false,
        onChunk: @escaping (Int, [UInt8]) -> Void = { _, _ in }
    ) throws(XFTPFileError) -> EncryptedFile {
        guard let fileSize = PosixFile.size(of: sourcePath) else { throw .io("cannot stat \(sourcePath)") }
        guard fileSize <= FileDescription.maxFileSizeHard else { throw .size }
        let header: [UInt8]
        do {
            header = try FileHeader(fileName: fileName).encoded()
        } catch {
            throw .invalidHeader("file name too long")
        }
        let payloadLen = Int64(header.count) + fileSize
        let payloadSize = payloadLen + Int64(lengthSize + authTagSize)
        let sizes: [UInt32]
        if singleChunk {
            guard let s = XFTPChunkSizes.singleChunkSize(payloadSize) else { throw .size }
            sizes = [s]
        } else {
            sizes = XFTPChunkSizes.prepare(payloadSize)
        }
        let encSize = sizes.reduce(Int64(0)) { $0 + Int64($1) }
        let src = try PosixFile(path: sourcePath, mode: .read)
        let dst = try PosixFile(path: encryptedPath, mode: .create)
        var writer = ChunkedWriter(file: dst, sizes: sizes, onChunk: onChunk)
        var sb: SecretBoxStream
        do {
            sb = try SecretBoxStream(secret: key, nonce: nonce)
        } catch {
            throw .crypto("\(error)")
        }
        var e = SMPEncoder(capacity: 8 + header.count)
        e.int64(payloadLen)
        e.raw(header)
        try writer.write(sb.encrypt(e.bytes))
        var left = fileSize
        while left > 0 {
            let n = Int(min(left, Int64(ioBlock)))
            var piece = try src.read(max: n)
            guard piece.count == n else { throw .io("encrypting file: unexpected EOF") }
            piece.withUnsafeMutableBytes { sb.encrypt(inPlace: $0) }
            try writer.write(piece)
            left -= Int64(n)
        }
        var pad = encSize - Int64(authTagSize) - payloadLen - Int64(lengthSize)
        while pad > 0 {
            let n = Int(min(pad, Int64(ioBlock)))
            try writer.write(sb.encrypt([UInt8](repeating: UInt8(ascii: "#"), count: n)))
            pad -= Int64(n)
        }
        try writer.write(sb.tag())
        let chunkDigests = writer.finish()
        return EncryptedFile(
            encryptedSize: encSize, digest: writer.fileHash.finalize(),
            chunks: zip(XFTPChunkSizes.offsets(sizes), chunkDigests).map { ($0.offset, $0.size, $1) })
    }

    /// Decrypts the downloaded chunk files (in order) of a file of `encryptedSize` bytes. The
    /// header's name is given to `destination`, which returns the path to write; nothing is left
    /// at that path unless the tag verifies and, when `digest` is given, the SHA-512 of the whole
    /// encrypted file equals it (checked in the same pass: the file is read once).
    public static func decrypt(
        chunkPaths: [String], encryptedSize: Int64, key: [UInt8], nonce: [UInt8], digest: [UInt8]? = nil,
        destination: @escaping (FileHeader) throws -> String
    ) throws(XFTPFileError) -> (header: FileHeader, path: String) {
        guard !chunkPaths.isEmpty else { throw .invalidHeader("empty") }
        let d = try FileDecryptor(encryptedSize: encryptedSize, key: key, nonce: nonce, digest: digest, destination: destination)
        for p in chunkPaths { try d.feed(chunkPath: p) }
        return try d.finish()
    }

    /// SHA-256 of `size` bytes at `offset` of a file (`getChunkDigest`).
    public static func chunkDigest(path: String, offset: Int64 = 0, size: Int64) throws(XFTPFileError) -> [UInt8] {
        let f = try PosixFile(path: path, mode: .read)
        try f.seek(to: offset)
        let h = StreamDigest(.sha256)
        var left = size
        while left > 0 {
            let b = try f.read(max: Int(min(left, Int64(ioBlock))))
            guard !b.isEmpty else { throw .io("\(path): unexpected end of file") }
            h.update(b)
            left -= Int64(b.count)
        }
        return h.finalize()
    }
}

/// Writes the encrypted stream, hashing each chunk (SHA-256) and the whole file (SHA-512).
struct ChunkedWriter {
    let file: PosixFile
    let sizes: [UInt32]
    var index = 0
    var inChunk: Int64 = 0
    let chunkHash = StreamDigest(.sha256)
    let fileHash = StreamDigest(.sha512)
    var digests: [[UInt8]] = []
    let onChunk: (Int, [UInt8]) -> Void

    init(file: PosixFile, sizes: [UInt32], onChunk: @escaping (Int, [UInt8]) -> Void) {
        self.file = file
        self.sizes = sizes
        self.onChunk = onChunk
    }

    mutating func write(_ bytes: [UInt8]) throws(XFTPFileError) {
        try file.write(bytes)
        fileHash.update(bytes)
        var off = 0
        while off < bytes.count {
            guard index < sizes.count else { throw .io("encrypted data exceeds chunk sizes") }
            let room = Int64(sizes[index]) - inChunk
            let n = Int(min(room, Int64(bytes.count - off)))
            bytes.withUnsafeBytes { chunkHash.update(UnsafeRawBufferPointer(rebasing: $0[off..<(off + n)])) }
            inChunk += Int64(n)
            off += n
            if inChunk == Int64(sizes[index]) {
                digests.append(chunkHash.finalize())
                onChunk(index, digests[index])
                inChunk = 0
                index += 1
            }
        }
    }

    func finish() -> [[UInt8]] { digests }
}
