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
        if left > 0 {
            if file == nil { file = PosixFileBox(try PosixFile(path: path, mode: .read)) }
            var piece = try file!.file.read(max: Int(min(Int64(max), left)))
            guard !piece.isEmpty else { throw XFTPErrorType.fileIO }
            left -= Int64(piece.count)
            piece.withUnsafeMutableBytes { stream.encrypt(inPlace: $0) }
            return piece
        }
        if !tagSent {
            tagSent = true
            file = nil
            return stream.tag()
        }
        return []
    }
}

/// Lets a Sendable value carry an open file used by one reader at a time.
final class PosixFileBox: @unchecked Sendable {
    let file: PosixFile
    init(_ f: PosixFile) { file = f }
}
