#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import XFTPProtocol

extension PosixFile {
    /// Writes `buffers` in order with writev(2) (received frames go to the file without being
    /// gathered into one buffer first); a short write continues where it stopped.
    func write(_ buffers: [ByteBuffer]) throws(XFTPFileError) {
        var iov: [iovec] = []
        iov.reserveCapacity(buffers.count)
        let ok = Self.withIovecs(buffers[...], &iov) { vecs in Self.writeAll(fd: fd, vecs) }
        guard ok else { throw .io("write \(path): errno \(errno)") }
    }

    /// Collects the buffers' readable bytes as iovecs while they are all pinned.
    private static func withIovecs(_ buffers: ArraySlice<ByteBuffer>, _ acc: inout [iovec], _ body: ([iovec]) -> Bool) -> Bool {
        guard let first = buffers.first else { return body(acc) }
        return first.withUnsafeReadableBytes { p in
            if p.count > 0 { acc.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: p.baseAddress), iov_len: p.count)) }
            return withIovecs(buffers.dropFirst(), &acc, body)
        }
    }

    private static func writeAll(fd: Int32, _ vecs: [iovec]) -> Bool {
        var vecs = vecs
        var i = 0
        while i < vecs.count {
            let n = vecs[i...].withUnsafeBufferPointer { writev(fd, $0.baseAddress, Int32(min($0.count, 1024))) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            // Skip what was written: whole vectors, then part of the next one.
            var done = n
            while i < vecs.count, done >= vecs[i].iov_len {
                done -= vecs[i].iov_len
                i += 1
            }
            if done > 0 {
                vecs[i].iov_base = vecs[i].iov_base.map { $0 + done }
                vecs[i].iov_len -= done
            }
        }
        return true
    }
}
