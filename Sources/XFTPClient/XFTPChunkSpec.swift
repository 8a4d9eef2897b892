/// Where a chunk's bytes are on disk for an upload (`XFTPChunkSpec`): a slice of the encrypted file.
public struct XFTPChunkSpec: Sendable, Equatable {
    public var path: String
    public var offset: Int64
    public var size: UInt32

    public init(path: String, offset: Int64, size: UInt32) {
        self.path = path
        self.offset = offset
        self.size = size
    }
}

/// The body of an FPUT: a slice of a file, or a chunk the encryption left in memory.
public enum XFTPChunkBody: Sendable {
    case file(XFTPChunkSpec)
    case memory(ChunkBuffer)

    var size: UInt32 {
        switch self {
        case .file(let spec): spec.size
        case .memory(let buffer): UInt32(buffer.count)
        }
    }
}

/// Where a downloaded chunk goes and what it must be (`XFTPRcvChunkSpec`).
public struct XFTPReceiveChunkSpec: Sendable, Equatable {
    public var path: String
    public var size: UInt32
    /// SHA-256 of the chunk.
    public var digest: [UInt8]

    public init(path: String, size: UInt32, digest: [UInt8]) {
        self.path = path
        self.size = size
        self.digest = digest
    }
}
