import Foundation
import SimplexFoundation
import XCTest
@testable import XFTPProtocol

/// File encryption, chunking and decryption over real files.
final class FileEncryptionTests: XCTestCase {
    var dir = ""

    override func setUp() {
        dir = NSTemporaryDirectory() + "xftp-enc-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testChunkSizesAsTheReferencePicksThem() {
        let kb: UInt32 = 1024, mb: UInt32 = 1024 * 1024
        XCTAssertEqual(XFTPChunkSizes.prepare(100), [64 * kb])
        XCTAssertEqual(XFTPChunkSizes.prepare(65536), [64 * kb])
        XCTAssertEqual(XFTPChunkSizes.prepare(65537), [64 * kb, 64 * kb])
        XCTAssertEqual(XFTPChunkSizes.prepare(200_000), [256 * kb])
        XCTAssertEqual(XFTPChunkSizes.prepare(300_000), [256 * kb, 64 * kb])
        XCTAssertEqual(XFTPChunkSizes.prepare(5 * Int64(mb)), [4 * mb, mb])
        XCTAssertEqual(XFTPChunkSizes.prepare(Int64(mb)), [mb])
        XCTAssertEqual(XFTPChunkSizes.prepare(Int64(mb) - 1), [mb], "over 3/4 of the big size: one big chunk")
        XCTAssertEqual(XFTPChunkSizes.prepare(700_000), [256 * kb, 256 * kb, 64 * kb, 64 * kb, 64 * kb])
        XCTAssertEqual(XFTPChunkSizes.prepare(0), [])
        XCTAssertEqual(XFTPChunkSizes.singleChunkSize(70_000), 256 * kb)
        XCTAssertNil(XFTPChunkSizes.singleChunkSize(5 * Int64(mb)))
        for size in [1, 1000, 70_000, 800_000, 3_000_000, 9_999_999] as [Int64] {
            let sizes = XFTPChunkSizes.prepare(size)
            XCTAssertTrue(sizes.allSatisfy(XFTPChunkSizes.all.contains))
            XCTAssertGreaterThanOrEqual(sizes.reduce(Int64(0)) { $0 + Int64($1) }, size)
        }
    }

    func testStreamMatchesOneShotSecretBox() throws {
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        let msg = SecureRandom.bytes(1000)
        let box = try CryptoBox.seal(key: CryptoBoxKey(dhSecret: key), nonce: nonce, plaintext: msg)
        var s = try SecretBoxStream(secret: key, nonce: nonce)
        var ct: [UInt8] = []
        var off = 0
        for n in [0, 1, 31, 32, 33, 63, 64, 65, 200] where off < msg.count {
            let e = min(msg.count, off + n)
            ct += s.encrypt(Array(msg[off..<e]))
            off = e
        }
        ct += s.encrypt(Array(msg[off...]))
        XCTAssertEqual(s.tag() + ct, box)
        var d = try SecretBoxStream(secret: key, nonce: nonce)
        XCTAssertEqual(d.decrypt(Array(ct[..<500])) + d.decrypt(Array(ct[500...])), msg)
        XCTAssertTrue(d.verify(tag: Array(box[..<16])))
    }

    /// The keystream at any stream position, from a fresh stream or one already advanced, equals
    /// what encrypting zeros from the start gives there (an upload encrypts chunks again this way).
    func testKeystreamAtAnyPosition() throws {
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        var sequential = try SecretBoxStream(secret: key, nonce: nonce)
        let keystream = sequential.encrypt([UInt8](repeating: 0, count: 5000))
        let fresh = try SecretBoxStream(secret: key, nonce: nonce)
        var ranges = [(0, 1), (0, 64), (31, 2), (32, 64), (33, 100), (63, 1), (64, 4000), (1000, 0), (4999, 1), (0, 5000)]
        for _ in 0..<50 {
            let a = Int.random(in: 0..<5000)
            ranges.append((a, Int.random(in: 0...(5000 - a))))
        }
        for (a, n) in ranges {
            for stream in [fresh, sequential] {
                var buf = [UInt8](repeating: 0, count: n)
                buf.withUnsafeMutableBytes { stream.applyKeystream(at: Int64(a), $0) }
                XCTAssertEqual(buf, Array(keystream[a..<(a + n)]), "range \(a)+\(n)")
            }
        }
        // The stream it was taken from goes on as if nothing happened.
        var other = try SecretBoxStream(secret: key, nonce: nonce)
        _ = other.encrypt([UInt8](repeating: 0, count: 5000))
        XCTAssertEqual(sequential.encrypt([1, 2, 3]), other.encrypt([1, 2, 3]))
        XCTAssertEqual(sequential.tag(), other.tag())
    }

    /// Any range of a file's encrypted stream made again from the source equals the bytes of the
    /// one pass, at any alignment; the tag's bytes need the tag, and nothing past the end is made.
    func testEncryptedStreamReaderRemakesAnyRange() throws {
        for size in [0, 1, 1000, 65_000, 300_000, 1_100_000] {
            let src = dir + "/src-\(size)", enc = dir + "/enc-\(size)"
            try Data(SecureRandom.bytes(size)).write(to: URL(fileURLWithPath: src))
            let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
            let r = try FileEncryption.encrypt(sourcePath: src, fileName: "f.bin", key: key, nonce: nonce, encryptedPath: enc)
            let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: enc)))
            let reader = try EncryptedStreamReader(sourcePath: src, fileName: "f.bin", key: key, nonce: nonce)
            XCTAssertEqual(reader.encryptedSize, Int64(whole.count))
            XCTAssertEqual(r.tag, Array(whole.suffix(16)))
            var ranges = r.chunks.map { (Int($0.offset), Int($0.size)) }
            for _ in 0..<20 {
                let a = Int.random(in: 0..<whole.count)
                ranges.append((a, Int.random(in: 0...min(5000, whole.count - a))))
            }
            for (a, n) in ranges {
                var got = [UInt8](repeating: 0, count: n)
                try got.withUnsafeMutableBytes { try reader.fill($0, at: Int64(a), tag: r.tag) }
                XCTAssertEqual(got, Array(whole[a..<(a + n)]), "size \(size), range \(a)+\(n)")
            }
            var last = [UInt8](repeating: 0, count: 16)
            XCTAssertThrowsError(try last.withUnsafeMutableBytes { try reader.fill($0, at: reader.encryptedSize - 16) })
            XCTAssertThrowsError(try last.withUnsafeMutableBytes { try reader.fill($0, at: reader.encryptedSize - 15, tag: r.tag) })
            XCTAssertTrue(reader.sourceUnchanged)
        }
    }

    /// A source rewritten in place (same size) after the reader was made is seen as changed.
    func testEncryptedStreamReaderSeesTheSourceChange() throws {
        let src = dir + "/src"
        try Data(SecureRandom.bytes(100_000)).write(to: URL(fileURLWithPath: src))
        let reader = try EncryptedStreamReader(sourcePath: src, fileName: "f.bin", key: SecureRandom.bytes(32), nonce: SecureRandom.bytes(24))
        XCTAssertTrue(reader.sourceUnchanged)
        // File times tick with the kernel's coarse clock.
        Thread.sleep(forTimeInterval: 0.05)
        let f = try PosixFile(path: src, mode: .create)
        try f.write(SecureRandom.bytes(100_000))
        XCTAssertFalse(reader.sourceUnchanged)
    }

    func testEncryptDecryptFiles() throws {
        for size in [0, 1, 65000, 300_000, 1_100_000] {
            let src = dir + "/src-\(size)"
            let content = SecureRandom.bytes(size)
            FileManager.default.createFile(atPath: src, contents: Data(content))
            let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
            let enc = dir + "/enc-\(size)"
            let r = try FileEncryption.encrypt(sourcePath: src, fileName: "photo \(size).jpg", key: key, nonce: nonce, encryptedPath: enc)
            XCTAssertEqual(PosixFile.size(of: enc), r.encryptedSize)
            XCTAssertEqual(r.chunks.map(\.size), XFTPChunkSizes.prepare(Int64(size) + Int64(try FileHeader(fileName: "photo \(size).jpg").encoded().count) + 24))
            let encBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: enc)))
            XCTAssertEqual(CryptoHash.sha512(encBytes), r.digest)
            // Cut into chunk files as a download would have them.
            var paths: [String] = []
            for (i, c) in r.chunks.enumerated() {
                let piece = Array(encBytes[Int(c.offset)..<Int(c.offset) + Int(c.size)])
                XCTAssertEqual(CryptoHash.sha256(piece), c.digest)
                let p = dir + "/chunk-\(size)-\(i)"
                FileManager.default.createFile(atPath: p, contents: Data(piece))
                paths.append(p)
            }
            let out = dir + "/out-\(size)"
            let (hdr, path) = try FileEncryption.decrypt(chunkPaths: paths, encryptedSize: r.encryptedSize, key: key, nonce: nonce) { _ in out }
            XCTAssertEqual(hdr.fileName, "photo \(size).jpg")
            XCTAssertEqual(path, out)
            XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))), content)
            // One altered byte: the tag fails and nothing is left behind.
            var tampered = [UInt8](try Data(contentsOf: URL(fileURLWithPath: paths.last!)))
            tampered[tampered.count / 2] ^= 0x40
            FileManager.default.createFile(atPath: paths.last!, contents: Data(tampered))
            try? FileManager.default.removeItem(atPath: out)
            XCTAssertThrowsError(try FileEncryption.decrypt(chunkPaths: paths, encryptedSize: r.encryptedSize, key: key, nonce: nonce) { _ in out })
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
    }

    /// The incremental decryptor gives the same file whatever the pieces it is fed (the header
    /// split across pieces, a piece ending inside the tag); a wrong file digest leaves nothing.
    func testDecryptorFedInPieces() throws {
        for size in [0, 10, 70_000, 300_000] {
            let src = dir + "/p-\(size)"
            let content = SecureRandom.bytes(size)
            FileManager.default.createFile(atPath: src, contents: Data(content))
            let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
            let enc = dir + "/p-enc-\(size)"
            let r = try FileEncryption.encrypt(sourcePath: src, fileName: "n.bin", key: key, nonce: nonce, encryptedPath: enc)
            let encBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: enc)))
            for pieceSizes in [[1, 3, 7, 1000], [5, 8, 2, 4096], [encBytes.count - 7, 3, 4]] {
                let out = dir + "/p-out-\(size)"
                let d = try FileDecryptor(encryptedSize: r.encryptedSize, key: key, nonce: nonce, digest: r.digest) { _ in out }
                var off = 0, i = 0
                while off < encBytes.count {
                    let n = min(max(1, pieceSizes[i % pieceSizes.count]), encBytes.count - off)
                    var piece = Array(encBytes[off..<(off + n)])
                    try d.feed(&piece)
                    off += n
                    i += 1
                }
                let (hdr, path) = try d.finish()
                XCTAssertEqual(hdr.fileName, "n.bin")
                XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), content)
                try FileManager.default.removeItem(atPath: out)
            }
            var wrong = r.digest
            wrong[0] ^= 1
            let out = dir + "/p-wrong-\(size)"
            let d = try FileDecryptor(encryptedSize: r.encryptedSize, key: key, nonce: nonce, digest: wrong) { _ in out }
            var whole = encBytes
            try d.feed(&whole)
            XCTAssertThrowsError(try d.finish()) { XCTAssertEqual($0 as? XFTPFileError, .digest) }
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
    }

    /// A download interrupted after some chunks continues from its partial output: the stream
    /// state is rebuilt from the plaintext written so far (bytes written past the saved point are
    /// cut), and the file verifies; a wrong saved prefix does not.
    func testDecryptorResumesFromPartialOutput() throws {
        let src = dir + "/r-src"
        let content = SecureRandom.bytes(300_000)
        FileManager.default.createFile(atPath: src, contents: Data(content))
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        let enc = dir + "/r-enc"
        let r = try FileEncryption.encrypt(sourcePath: src, fileName: "r.bin", key: key, nonce: nonce, encryptedPath: enc)
        let encBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: enc)))
        let cut = 100_000
        for wrongPrefix in [false, true] {
            let out = dir + "/r-out-\(wrongPrefix)"
            let first = try FileDecryptor(encryptedSize: r.encryptedSize, key: key, nonce: nonce, digest: r.digest) { _ in out }
            var head = Array(encBytes[0..<cut])
            head.withUnsafeMutableBytes { try? first.feed(inPlace: $0) }
            XCTAssertEqual(first.fed, Int64(cut))
            var prefix = first.prefix
            XCTAssertGreaterThan(prefix.count, FileEncryption.lengthSize)
            // A crash while the next piece was being written leaves extra bytes behind.
            let h = try PosixFile(path: out, mode: .append)
            try h.write([1, 2, 3])
            if wrongPrefix { prefix[prefix.count - 1] ^= 1 }
            let resumed: FileDecryptor
            do {
                resumed = try FileDecryptor.resuming(encryptedSize: r.encryptedSize, key: key, nonce: nonce, digest: r.digest, outputPath: out,
                                                     prefix: prefix, fed: Int64(cut))
            } catch {
                XCTAssertTrue(wrongPrefix, "resuming failed: \(error)")
                continue
            }
            var rest = Array(encBytes[cut...])
            try rest.withUnsafeMutableBytes { try resumed.feed(inPlace: $0) }
            if wrongPrefix {
                XCTAssertThrowsError(try resumed.finish())
                XCTAssertFalse(FileManager.default.fileExists(atPath: out))
            } else {
                let (hdr, path) = try resumed.finish()
                XCTAssertEqual(hdr.fileName, "r.bin")
                XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), content)
            }
        }
    }

    func testHostileFileNames() {
        XCTAssertEqual(FileHeader(fileName: "../../etc/passwd").safeFileName, "passwd")
        XCTAssertEqual(FileHeader(fileName: "..").safeFileName, "file")
        XCTAssertEqual(FileHeader(fileName: "a\u{1b}[31mb\u{7}.txt").safeFileName, "a[31mb.txt")
        XCTAssertEqual(FileHeader(fileName: "C:\\x\\y.doc").safeFileName, "y.doc")
        XCTAssertEqual(FileHeader(fileName: ".hidden").safeFileName, "hidden")
        XCTAssertEqual(FileHeader(fileName: String(repeating: "é", count: 300)).safeFileName.utf8.count, 254)
    }
}
