import SimplexFoundation

/// Decrypts an XFTP file fed chunk by chunk in order (`decryptChunks` of the reference, made
/// incremental): a download can decrypt chunk 1..k while chunk k+1 is still arriving. The header's
/// name is given to `destination` once the header is read; nothing is left at that path unless the
/// whole file was fed, its tag verifies and, when `digest` is given, the SHA-512 of the whole
/// encrypted file equals it. Used by one task at a time.
public final class FileDecryptor {
    private var sb: SecretBoxStream
    private let fileHash: StreamDigest?
    private let digest: [UInt8]?
    private let encryptedSize: Int64
    private let destination: (FileHeader) throws -> String
    /// Encrypted bytes fed so far.
    public private(set) var fed: Int64 = 0
    /// The plaintext before the content (length and header), kept once read: with it and the
    /// content written so far, `resuming` rebuilds this decryptor after a restart.
    public private(set) var prefix: [UInt8] = []
    /// Plaintext kept until the length and header can be read.
    private var headerArea: [UInt8] = []
    private var out: PosixFile?
    private var contentLeft: Int64 = 0
    private var tag: [UInt8] = []
    public private(set) var header: FileHeader?
    public private(set) var path: String?

    public init(encryptedSize: Int64, key: [UInt8], nonce: [UInt8], digest: [UInt8]? = nil,
                destination: @escaping (FileHeader) throws -> String) throws(XFTPFileError) {
        guard encryptedSize >= Int64(FileEncryption.authTagSize + FileEncryption.lengthSize) else {
            throw .invalidHeader("encrypted file too small")
        }
        sb = try FileEncryption.stream(key: key, nonce: nonce)
        self.encryptedSize = encryptedSize
        self.digest = digest
        fileHash = digest.map { _ in StreamDigest(.sha512) }
        self.destination = destination
    }

    private var cipherSize: Int64 { encryptedSize - Int64(FileEncryption.authTagSize) }

    /// Feeds the next encrypted bytes from memory the caller owns, decrypting them there: the
    /// digest is taken piece by piece before each piece is decrypted, and the content is written
    /// in one call. A downloaded chunk goes from its buffer to the output with no other copy.
    public func feed(inPlace p: UnsafeMutableRawBufferPointer) throws(XFTPFileError) {
        guard fed + Int64(p.count) <= encryptedSize else { throw .invalidHeader("chunks longer than the file") }
        let cipherCount = Int(max(0, min(Int64(p.count), cipherSize - fed)))
        fed += Int64(p.count)
        if let fileHash {
            var off = 0
            while off < p.count {
                let n = min(FileEncryption.ioBlock, p.count - off)
                let piece = UnsafeMutableRawBufferPointer(rebasing: p[off..<(off + n)])
                fileHash.update(UnsafeRawBufferPointer(piece))
                // Decrypted while the piece is still in cache.
                let c = max(0, min(n, cipherCount - off))
                if c > 0 { sb.decrypt(inPlace: UnsafeMutableRawBufferPointer(rebasing: piece[0..<c])) }
                off += n
            }
        } else if cipherCount > 0 {
            sb.decrypt(inPlace: UnsafeMutableRawBufferPointer(rebasing: p[0..<cipherCount]))
        }
        if cipherCount < p.count { tag += UnsafeRawBufferPointer(rebasing: p[cipherCount...]) }
        if cipherCount > 0 { try plaintext(UnsafeRawBufferPointer(rebasing: p[0..<cipherCount])) }
    }

    /// Feeds the next encrypted bytes (decrypted in place).
    public func feed(_ bytes: inout [UInt8]) throws(XFTPFileError) {
        var failure: XFTPFileError?
        bytes.withUnsafeMutableBytes { p in
            do throws(XFTPFileError) { try feed(inPlace: p) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func plaintext(_ p: UnsafeRawBufferPointer) throws(XFTPFileError) {
        guard let out else {
            headerArea += p
            // The length prefix and (within the first KB) the header, as the reference reads them.
            let needed = Int(min(Int64(FileEncryption.lengthSize + 1024), cipherSize))
            if headerArea.count >= needed { try openOutput() }
            return
        }
        guard contentLeft > 0 else { return }  // '#' padding
        let take = Int(min(contentLeft, Int64(p.count)))
        try out.write(UnsafeRawBufferPointer(rebasing: p[0..<take]))
        contentLeft -= Int64(take)
    }

    private func openOutput() throws(XFTPFileError) {
        let n = FileEncryption.lengthSize
        var ld = SMPDecoder(headerArea.prefix(n))
        guard headerArea.count >= n, let len = try? ld.int64(), len >= 0 else { throw .invalidHeader("length") }
        guard len <= encryptedSize - Int64(FileEncryption.authTagSize + n) else { throw .invalidHeader("length exceeds file") }
        let area = Array(headerArea[n...])
        let hdrArea = Array(area.prefix(Int(min(len, Int64(area.count)))))
        let used: Int
        do {
            let (h, u) = try FileHeader.decode(prefixOf: hdrArea)
            header = h
            used = u
        } catch {
            throw .invalidHeader("\(error)")
        }
        let target: String
        do {
            target = try destination(header!)
        } catch {
            throw .io("destination: \(error)")
        }
        let file = try PosixFile(path: target, mode: .create)
        out = file
        path = target
        prefix = Array(headerArea[0..<(n + used)])
        contentLeft = len - Int64(used)
        headerArea = []
        try plaintextAfterHeader(Array(area[used...]))
    }

    private func plaintextAfterHeader(_ rest: [UInt8]) throws(XFTPFileError) {
        var failure: XFTPFileError?
        rest.withUnsafeBytes { p in
            do throws(XFTPFileError) { try plaintext(p) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// A decryptor that continues a download after a restart: `fed` encrypted bytes were fed
    /// before, whose content is in `outputPath` and whose `prefix` (length and header) was saved.
    /// The stream state is rebuilt by encrypting that plaintext again (the same keystream gives
    /// the same ciphertext for the digest and the tag); content written past it is cut off.
    public static func resuming(encryptedSize: Int64, key: [UInt8], nonce: [UInt8], digest: [UInt8]?, outputPath: String,
                                prefix: [UInt8], fed: Int64) throws(XFTPFileError) -> FileDecryptor {
        let d = try FileDecryptor(encryptedSize: encryptedSize, key: key, nonce: nonce, digest: digest) { _ in outputPath }
        try d.rebuild(outputPath: outputPath, prefix: prefix, fed: fed)
        return d
    }

    private func rebuild(outputPath: String, prefix: [UInt8], fed: Int64) throws(XFTPFileError) {
        let n = FileEncryption.lengthSize
        guard prefix.count > n, fed >= Int64(prefix.count), fed <= cipherSize else { throw .invalidHeader("resume state") }
        var ld = SMPDecoder(prefix.prefix(n))
        guard let len = try? ld.int64(), len >= 0, len <= encryptedSize - Int64(FileEncryption.authTagSize + n) else {
            throw .invalidHeader("length")
        }
        let (h, used): (FileHeader, Int)
        do {
            (h, used) = try FileHeader.decode(prefixOf: Array(prefix[n...]))
        } catch {
            throw .invalidHeader("\(error)")
        }
        guard used == prefix.count - n else { throw .invalidHeader("resume state") }
        let contentSize = len - Int64(used)
        let contentFed = min(fed - Int64(prefix.count), contentSize)
        let paddingFed = fed - Int64(prefix.count) - contentFed
        guard let size = PosixFile.size(of: outputPath), size >= contentFed, PosixFile.truncate(outputPath, to: contentFed) else {
            throw .io("partial output missing or short")
        }
        func absorb(_ p: UnsafeMutableRawBufferPointer) {
            sb.encrypt(inPlace: p)
            fileHash?.update(UnsafeRawBufferPointer(p))
        }
        var head = prefix
        head.withUnsafeMutableBytes { absorb($0) }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: FileEncryption.ioBlock, alignment: 64)
        defer { scratch.deallocate() }
        let file = try PosixFile(path: outputPath, mode: .read)
        var left = contentFed
        while left > 0 {
            let piece = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<Int(min(left, Int64(scratch.count)))])
            guard try file.read(into: piece) == piece.count else { throw .io("partial output short") }
            absorb(piece)
            left -= Int64(piece.count)
        }
        var pad = paddingFed
        while pad > 0 {
            let piece = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<Int(min(pad, Int64(scratch.count)))])
            piece.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "#"))
            absorb(piece)
            pad -= Int64(piece.count)
        }
        self.prefix = prefix
        self.fed = fed
        header = h
        path = outputPath
        contentLeft = contentSize - contentFed
        out = try PosixFile(path: outputPath, mode: .append)
    }

    /// Checks the whole file was fed, the digest and the tag; returns the header and the path.
    public func finish() throws(XFTPFileError) -> (header: FileHeader, path: String) {
        do throws(XFTPFileError) {
            guard fed == encryptedSize, tag.count == FileEncryption.authTagSize else { throw .invalidHeader("chunks shorter than the file") }
            guard let header, let path else { throw .invalidHeader("no header") }
            if let fileHash, let digest, fileHash.finalize() != digest { throw .digest }
            guard sb.verify(tag: tag) else { throw .invalidAuthTag }
            out = nil
            return (header, path)
        } catch {
            abort()
            throw error
        }
    }

    /// Stops and removes what was written.
    public func abort() {
        out = nil
        if let path { PosixFile.remove(path) }
    }
}
