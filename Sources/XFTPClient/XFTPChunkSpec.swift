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
