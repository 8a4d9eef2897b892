import Foundation
import SimplexFoundation
import XFTPProtocol

/// The cryptography XFTP itself asks for on top of a TLS stream, timed single-threaded in this
/// process over the file's bytes: the sender's secretbox stream, SHA-256 chunk digests and SHA-512
/// file digest; the server's check of each chunk's SHA-256 and its secretbox of each chunk sent;
/// the recipient's decryption of that transit box, the chunk digest check, the file digest and the
/// file's secretbox stream. With the plain TLS run's CPU it bounds what any XFTP design can reach on
/// this machine (the work per byte is the protocol's, only its overhead is the design's).
struct XFTPCryptoFloor {
    /// Seconds per MB, single-threaded.
    let sha512: Double, sha256: Double, secretbox: Double

    static func measure() -> XFTPCryptoFloor {
        let block = 64 * 1024, total = 64 << 20
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 64)
        defer { memory.deallocate() }
        memory.copyBytes(from: SecureRandom.bytes(memory.count))
        /// Best of three passes over `total` bytes, 64 KB pieces of a 4 MB chunk as the client hashes them.
        func secondsPerMB(_ op: (UnsafeMutableRawBufferPointer) -> Void) -> Double {
            var best = Double.infinity
            for _ in 0..<3 {
                let t = DispatchTime.now().uptimeNanoseconds
                var done = 0
                while done < total {
                    var off = 0
                    while off < memory.count {
                        op(UnsafeMutableRawBufferPointer(rebasing: memory[off..<(off + block)]))
                        off += block
                    }
                    done += memory.count
                }
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9)
            }
            return best / Double(total >> 20)
        }
        let h512 = StreamDigest(.sha512), h256 = StreamDigest(.sha256)
        var box = try! SecretBoxStream(secret: SecureRandom.bytes(32), nonce: SecureRandom.bytes(24))
        let sha512 = secondsPerMB { h512.update(UnsafeRawBufferPointer($0)) }
        let sha256 = secondsPerMB { h256.update(UnsafeRawBufferPointer($0)) }
        let secretbox = secondsPerMB { box.encrypt(inPlace: $0) }
        _ = (h512.finalize(), h256.finalize(), box.tag())
        return XFTPCryptoFloor(sha512: sha512, sha256: sha256, secretbox: secretbox)
    }

    /// The client's share for `mb` MB up and down: 2 SHA-512, 2 SHA-256 and 3 secretbox passes.
    func client(mb: Double) -> Double { mb * (2 * sha512 + 2 * sha256 + 3 * secretbox) }
    /// The servers' share: one SHA-256 pass (FPUT) and one secretbox pass (FGET).
    func server(mb: Double) -> Double { mb * (sha256 + secretbox) }
}
