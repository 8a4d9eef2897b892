import NIOCore
import SimplexFoundation
import XFTPProtocol

/// The chunk body that follows a `FILE` response: the stored chunk encrypted for this download
/// with the DH secret of FGET (`sendEncFile`), then the 16-byte tag. Read it in pieces with `next`.
public struct ServerFile: Sendable {
    public let path: String
    public let size: UInt32
    private var stream: SecretBoxStream
    private var file: PosixFileBox?
    private var left: Int64
    private var tagSent = false

    init(path: String, size: UInt32, stream: SecretBoxStream) {
        self.path = path
        self.size = size
        self.stream = stream
        left = Int64(size)
    }

    /// Bytes the response body will have: the chunk and the tag.
    public var bodySize: Int64 { Int64(size) + Int64(FileEncryption.authTagSize) }

    /// The next piece of the encrypted body (up to `max` bytes), empty at the end.
    public mutating func next(max: Int = 16384) throws -> [UInt8] {
        try next(max: max, allocator: ByteBufferAllocator()).map { Array($0.readableBytesView) } ?? []
    }

    /// The next piece as a buffer from `allocator`, nil at the end: the file is read straight into
    /// it and encrypted in place, so the bytes are copied once on their way to HTTP/2.
    public mutating func next(max: Int, allocator: ByteBufferAllocator) throws -> ByteBuffer? {
        if left > 0 {
            if file == nil { file = PosixFileBox(try PosixFile(path: path, mode: .read)) }
            let want = Int(min(Int64(max), left))
            var piece = allocator.buffer(capacity: want)
            let f = file!.file
            var failed = false
            piece.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw in
                let dst = UnsafeMutableRawBufferPointer(rebasing: raw[0..<want])
                guard let n = try? f.read(into: dst), n > 0 else {
                    failed = true
                    return 0
                }
                stream.encrypt(inPlace: UnsafeMutableRawBufferPointer(rebasing: dst[0..<n]))
                return n
            }
            guard !failed else { throw XFTPErrorType.fileIO }
            left -= Int64(piece.readableBytes)
            return piece
        }
        if !tagSent {
            tagSent = true
            file = nil
            return allocator.buffer(bytes: stream.tag())
        }
        return nil
    }
}

/// Lets a Sendable value carry an open file used by one reader at a time.
final class PosixFileBox: @unchecked Sendable {
    let file: PosixFile
    init(_ f: PosixFile) { file = f }
}
