import Foundation
import SimplexFoundation
import XFTPProtocol

/// The cryptography XFTP itself asks for on top of a TLS stream, timed single-threaded in this
/// process over the file's bytes: the sender's secretbox stream, SHA-256 chunk digests and SHA-512
/// file digest; the server's check of each chunk's SHA-256 and its secretbox of each chunk sent;
/// the recipient's decryption of that transit box, the chunk digest check, the file digest and the
/// file's secretbox stream. With the plain TLS run's CPU it bounds what any XFTP design can reach on
/// this machine (the work per byte is the protocol's, only its overhead is the design's).
/// It also counts the file copies a transfer cannot avoid: the sender reads the file and the
/// recipient writes it, and a server writes each chunk to disk and reads it back (the reference
/// keeps chunks in files; a server holding them in memory would break the 64 MB RSS target).
struct XFTPCryptoFloor {
    /// Seconds per MB, single-threaded; `fileIO` is one write and one read back through the page cache.
    let sha512: Double, sha256: Double, secretbox: Double, fileIO: Double

    static func measure() -> XFTPCryptoFloor {
        let block = 64 * 1024, total = 64 << 20
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 64)
        defer { memory.deallocate() }
        memory.copyBytes(from: SecureRandom.bytes(memory.count))
        /// Best of three passes over `total` bytes, 64 KB pieces of a 4 MB chunk as the client hashes
        /// them, in thread CPU time (steadier than wall time when the machine is shared).
        func secondsPerMB(_ op: (UnsafeMutableRawBufferPointer) -> Void) -> Double {
            var best = Double.infinity
            for _ in 0..<3 {
                let t = threadCPUSeconds()
                var done = 0
                while done < total {
                    var off = 0
                    while off < memory.count {
                        op(UnsafeMutableRawBufferPointer(rebasing: memory[off..<(off + block)]))
                        off += block
                    }
                    done += memory.count
                }
                best = min(best, threadCPUSeconds() - t)
            }
            return best / Double(total >> 20)
        }
        let h512 = StreamDigest(.sha512), h256 = StreamDigest(.sha256)
        var box = try! SecretBoxStream(secret: SecureRandom.bytes(32), nonce: SecureRandom.bytes(24))
        let sha512 = secondsPerMB { h512.update(UnsafeRawBufferPointer($0)) }
        let sha256 = secondsPerMB { h256.update(UnsafeRawBufferPointer($0)) }
        let secretbox = secondsPerMB { box.encrypt(inPlace: $0) }
        _ = (h512.finalize(), h256.finalize(), box.tag())
        return XFTPCryptoFloor(sha512: sha512, sha256: sha256, secretbox: secretbox,
                               fileIO: fileWriteAndReadSecondsPerMB(UnsafeRawBufferPointer(memory), total: total, piece: block))
    }

    /// Thread CPU (the kernel's copies, not the disk's latency) of writing `total` bytes to a new
    /// file in `piece`-byte writes and reading them back, best of three, per MB.
    private static func fileWriteAndReadSecondsPerMB(_ data: UnsafeRawBufferPointer, total: Int, piece: Int) -> Double {
        let path = NSTemporaryDirectory() + "xftp-floor-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let back = UnsafeMutableRawBufferPointer.allocate(byteCount: piece, alignment: 64)
        defer { back.deallocate() }
        var best = Double.infinity
        for _ in 0..<3 {
            let t = threadCPUSeconds()
            let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
            guard fd >= 0 else { return 0 }
            var done = 0
            while done < total {
                var off = 0
                while off < data.count { _ = write(fd, data.baseAddress! + off, piece); off += piece }
                done += data.count
            }
            close(fd)
            let rfd = open(path, O_RDONLY)
            guard rfd >= 0 else { return 0 }
            while read(rfd, back.baseAddress!, piece) > 0 {}
            close(rfd)
            best = min(best, threadCPUSeconds() - t)
        }
        return best / Double(total >> 20)
    }

    private static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The client's share for `mb` MB up and down: 2 SHA-512, 2 SHA-256 and 3 secretbox passes,
    /// reading the source and writing the received file.
    func client(mb: Double) -> Double { mb * (2 * sha512 + 2 * sha256 + 3 * secretbox + fileIO) }
    /// The servers' share: one SHA-256 pass (FPUT) and one secretbox pass (FGET), each chunk
    /// written to disk and read back.
    func server(mb: Double) -> Double { mb * (sha256 + secretbox + fileIO) }
}
