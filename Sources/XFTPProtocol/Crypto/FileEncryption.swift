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
        /// The stream's last 16 bytes (what `EncryptedStreamReader` needs for the last chunk).
        public var tag: [UInt8]
    }

    /// The file's secretbox stream (`sbInit` of the file key and nonce).
    static func stream(key: [UInt8], nonce: [UInt8]) throws(XFTPFileError) -> SecretBoxStream {
        do {
            return try SecretBoxStream(secret: key, nonce: nonce)
        } catch {
            throw .crypto("\(error)")
        }
    }

    /// The stream's first plaintext: the 8-byte length of header and content, then the header.
    static func prefix(header: [UInt8], contentSize: Int64) -> [UInt8] {
        var e = SMPEncoder(capacity: lengthSize + header.count)
        e.int64(Int64(header.count) + contentSize)
        e.raw(header)
        return e.bytes
    }

    /// The chunk sizes `encryptChunks` will cut the file into (known before encrypting, so uploads
    /// can be planned while it runs): `XFTPChunkSizes.prepare`, or one chunk for a redirect description.
    public static func chunkSizes(sourcePath: String, fileName: String, singleChunk: Bool = false) throws(XFTPFileError) -> [UInt32] {
        try layout(sourcePath: sourcePath, fileName: fileName, singleChunk: singleChunk).sizes
    }

    /// The header carrying `fileName`, the source's size and the chunk sizes of its encrypted stream.
    static func layout(sourcePath: String, fileName: String,
                       singleChunk: Bool) throws(XFTPFileError) -> (header: [UInt8], fileSize: Int64, sizes: [UInt32]) {
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
            return (header, fileSize, [s])
        }
        return (header, fileSize, XFTPChunkSizes.prepare(payloadSize))
    }

    /// The encrypted stream, chunk by chunk, with no encrypted file: chunk `i` is produced into
    /// `memory(i)` (at least the chunk's size; nil: into a scratch piece that is only hashed), and
    /// `onChunk(i, digest)` follows the chunk's last byte. Chunks come strictly in order (the tag needs every byte before it), so the
    /// same key, nonce and source always give the same chunks: an upload resumes by encrypting again.
    public static func encryptChunks(
        sourcePath: String, fileName: String, key: [UInt8], nonce: [UInt8], singleChunk: Bool = false,
        memory: (Int) throws(XFTPFileError) -> UnsafeMutableRawBufferPointer?,
        onChunk: (Int, [UInt8]) throws(XFTPFileError) -> Void
    ) throws(XFTPFileError) -> EncryptedFile {
        let (header, fileSize, sizes) = try layout(sourcePath: sourcePath, fileName: fileName, singleChunk: singleChunk)
        let payloadLen = Int64(header.count) + fileSize
        let encSize = sizes.reduce(Int64(0)) { $0 + Int64($1) }
        var stream = try EncryptingReader(source: try PosixFile(path: sourcePath, mode: .read), key: key, nonce: nonce,
                                          header: header, contentSize: fileSize,
                                          paddingSize: encSize - Int64(authTagSize) - payloadLen - Int64(lengthSize))
        let chunkHash = StreamDigest(.sha256), fileHash = StreamDigest(.sha512)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: ioBlock, alignment: 64)
        defer { scratch.deallocate() }
        var digests: [[UInt8]] = []
        digests.reserveCapacity(sizes.count)
        for (i, size) in sizes.enumerated() {
            let whole = try memory(i)
            if let whole, whole.count < Int(size) { throw .io("chunk memory smaller than the chunk") }
            var off = 0
            // Pieces small enough to be hashed while they are still in cache.
            while off < Int(size) {
                let n = min(ioBlock, Int(size) - off)
                let piece = whole.map { UnsafeMutableRawBufferPointer(rebasing: $0[off..<(off + n)]) }
                    ?? UnsafeMutableRawBufferPointer(rebasing: scratch[0..<n])
                try stream.fill(piece)
                let done = UnsafeRawBufferPointer(piece)
                chunkHash.update(done)
                fileHash.update(done)
                off += n
            }
            digests.append(chunkHash.finalize())
            try onChunk(i, digests[i])
        }
        guard let tag = stream.writtenTag else { throw .io("encrypted data shorter than the chunk sizes") }
        return EncryptedFile(
            encryptedSize: encSize, digest: fileHash.finalize(),
            chunks: zip(XFTPChunkSizes.offsets(sizes), digests).map { ($0.offset, $0.size, $1) }, tag: tag)
    }
}

/// The encrypted stream of a file in order, `length ++ header`, the content, the `#` padding, then
/// the tag: each `fill` reads the source straight into the caller's memory and encrypts it there.
struct EncryptingReader {
    private var sb: SecretBoxStream
    private let source: PosixFile
    /// Encrypted length and header, handed out first.
    private var prefix: [UInt8]
    private var prefixUsed = 0
    private var contentLeft: Int64
    private var paddingLeft: Int64
    private var tag: [UInt8]?
    private var tagUsed = 0
    /// The tag, once all of it was handed out.
    var writtenTag: [UInt8]? { tagUsed == FileEncryption.authTagSize ? tag : nil }

    init(source: PosixFile, key: [UInt8], nonce: [UInt8], header: [UInt8], contentSize: Int64,
         paddingSize: Int64) throws(XFTPFileError) {
        sb = try FileEncryption.stream(key: key, nonce: nonce)
        self.source = source
        prefix = sb.encrypt(FileEncryption.prefix(header: header, contentSize: contentSize))
        contentLeft = contentSize
        paddingLeft = paddingSize
    }

    mutating func fill(_ dst: UnsafeMutableRawBufferPointer) throws(XFTPFileError) {
        guard let base = dst.baseAddress else { return }
        var off = 0
        while off < dst.count {
            let room = dst.count - off
            if prefixUsed < prefix.count {
                let n = min(room, prefix.count - prefixUsed)
                prefix.withUnsafeBytes { (base + off).copyMemory(from: $0.baseAddress! + prefixUsed, byteCount: n) }
                prefixUsed += n
                off += n
            } else if contentLeft > 0 {
                let n = Int(min(Int64(room), contentLeft))
                let piece = UnsafeMutableRawBufferPointer(start: base + off, count: n)
                guard try source.read(into: piece) == n else { throw .io("encrypting file: unexpected EOF") }
                sb.encrypt(inPlace: piece)
                contentLeft -= Int64(n)
                off += n
            } else if paddingLeft > 0 {
                let n = Int(min(Int64(room), paddingLeft))
                let piece = UnsafeMutableRawBufferPointer(start: base + off, count: n)
                piece.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "#"))
                sb.encrypt(inPlace: piece)
                paddingLeft -= Int64(n)
                off += n
            } else {
                let t = tag ?? sb.tag()
                tag = t
                guard tagUsed < t.count else { throw .io("encrypted data exceeds chunk sizes") }
                let n = min(room, t.count - tagUsed)
                t.withUnsafeBytes { (base + off).copyMemory(from: $0.baseAddress! + tagUsed, byteCount: n) }
                tagUsed += n
                off += n
            }
        }
    }
}
