#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file descriptor with whole-buffer reads and writes that retry on EINTR; the file
/// code streams through it so 1 GB files never sit in memory.
public final class PosixFile {
    public let fd: Int32
    public let path: String

    /// `update`: read and write, created empty (truncated if it existed).
    public enum Mode { case read, create, append, update }

    public init(path: String, mode: Mode) throws(XFTPFileError) {
        let flags: Int32
        switch mode {
        case .read: flags = O_RDONLY
        case .create: flags = O_WRONLY | O_CREAT | O_TRUNC
        case .append: flags = O_WRONLY | O_CREAT | O_APPEND
        case .update: flags = O_RDWR | O_CREAT | O_TRUNC
        }
        let fd = open(path, flags | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io("cannot open \(path): errno \(errno)") }
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Reads up to `max` bytes; an empty result is the end of the file.
    public func read(max: Int) throws(XFTPFileError) -> [UInt8] {
        var buf = [UInt8](repeating: 0, count: max)
        var got = 0
        while got < max {
            let n = buf.withUnsafeMutableBytes { Glibc_read(fd, $0.baseAddress! + got, max - got) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("read \(path): errno \(errno)")
            }
            if n == 0 { break }
            got += n
        }
        buf.removeLast(max - got)
        return buf
    }

    /// Reads into `dst` until it is full or the file ends; returns the bytes read (no zero-filled
    /// array in between, for the file passes that own their memory).
    public func read(into dst: UnsafeMutableRawBufferPointer) throws(XFTPFileError) -> Int {
        guard let base = dst.baseAddress else { return 0 }
        var got = 0
        while got < dst.count {
            let n = Glibc_read(fd, base + got, dst.count - got)
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("read \(path): errno \(errno)")
            }
            if n == 0 { break }
            got += n
        }
        return got
    }

    /// Reads into `dst` from `offset` (pread: the file position is left alone) until it is full
    /// or the file ends; returns the bytes read.
    public func read(into dst: UnsafeMutableRawBufferPointer, at offset: Int64) throws(XFTPFileError) -> Int {
        guard let base = dst.baseAddress else { return 0 }
        var got = 0
        while got < dst.count {
            let n = pread(fd, base + got, dst.count - got, off_t(offset + Int64(got)))
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("read \(path): errno \(errno)")
            }
            if n == 0 { break }
            got += n
        }
        return got
    }

    /// Writes all of `p` at `offset` (pwrite: the file position is left alone).
    public func write(_ p: UnsafeRawBufferPointer, at offset: Int64) throws(XFTPFileError) {
        guard let base = p.baseAddress else { return }
        var off = 0
        while off < p.count {
            let n = pwrite(fd, base + off, p.count - off, off_t(offset + Int64(off)))
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("write \(path): errno \(errno)")
            }
            off += n
        }
    }

    /// Frees the range's blocks and pages, keeping the size (fallocate PUNCH_HOLE): bytes read
    /// once are dropped without ever being written back. False where the file system cannot.
    @discardableResult
    public func punchHole(at offset: Int64, count: Int64) -> Bool {
        #if os(Linux)
        // FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE (linux/falloc.h).
        return glibcFallocate(fd, 0x01 | 0x02, Int64(offset), Int64(count)) == 0
        #else
        return false
        #endif
    }

    /// Size and modification time: what tells that a file changed between two passes over it.
    public static func fingerprint(of path: String) -> [Int64]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [Int64(st.st_size), Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec), Int64(st.st_ino)]
    }

    public func write(_ p: UnsafeRawBufferPointer) throws(XFTPFileError) {
        guard let base = p.baseAddress else { return }
        var off = 0
        while off < p.count {
            let n = Glibc_write(fd, base + off, p.count - off)
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("write \(path): errno \(errno)")
            }
            off += n
        }
    }

    /// Reads exactly `count` bytes or throws (the file ended early).
    public func read(exactly count: Int) throws(XFTPFileError) -> [UInt8] {
        let b = try read(max: count)
        guard b.count == count else { throw .io("\(path): unexpected end of file") }
        return b
    }

    public func write(_ bytes: [UInt8]) throws(XFTPFileError) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc_write(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("write \(path): errno \(errno)")
            }
            off += n
        }
    }

    public func seek(to offset: Int64) throws(XFTPFileError) {
        guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else { throw .io("seek \(path): errno \(errno)") }
    }

    public func sync() { fsync(fd) }

    public static func size(of path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_size)
    }

    /// Cuts a file to `size` bytes (a partial download continues from there).
    public static func truncate(_ path: String, to size: Int64) -> Bool { Glibc_truncate(path, off_t(size)) == 0 }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    @discardableResult
    public static func remove(_ path: String) -> Bool { unlink(path) == 0 }

    /// Moves `from` to `to` in one step (rename(2)), replacing `to`: readers never see a partial file.
    public static func rename(_ from: String, to: String) -> Bool { Glibc_rename(from, to) == 0 }
}

#if os(Linux)
// Declared by <fcntl.h> only under _GNU_SOURCE, so not in the Glibc module (off_t is 64-bit here).
@_silgen_name("fallocate")
private func glibcFallocate(_ fd: Int32, _ mode: Int32, _ offset: Int64, _ len: Int64) -> Int32
#endif

#if canImport(Glibc)
private let Glibc_read = Glibc.read
private let Glibc_write = Glibc.write
private let Glibc_truncate = Glibc.truncate
private let Glibc_rename = Glibc.rename
#elseif canImport(Darwin)
private let Glibc_read = Darwin.read
private let Glibc_write = Darwin.write
private let Glibc_truncate = Darwin.truncate
private let Glibc_rename = Darwin.rename
#endif

public enum XFTPFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case io(String)
    /// The file is larger than the 5 GB hard limit (`FILE SIZE`).
    case size
    /// The decrypted header or length is malformed (`FTCEInvalidHeader`).
    case invalidHeader(String)
    /// The auth tag does not match (`FTCEInvalidAuthTag`): the file was altered.
    case invalidAuthTag
    /// A chunk's digest does not match its description.
    case digest
    case crypto(String)

    public var description: String {
        switch self {
        case .io(let w): "file IO error: \(w)"
        case .size: "file too large"
        case .invalidHeader(let w): "invalid file header: \(w)"
        case .invalidAuthTag: "invalid file auth tag"
        case .digest: "chunk digest mismatch"
        case .crypto(let w): "file crypto error: \(w)"
        }
    }
}
