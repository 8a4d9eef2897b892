import XFTPProtocol

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

/// The body of an FPUT: a slice of an encrypted file, or a chunk encrypted again from its source
/// as it is sent.
public enum XFTPChunkBody: Sendable {
    case file(XFTPChunkSpec)
    case encrypted(EncryptedChunk)

    var size: UInt32 {
        switch self {
        case .file(let spec): spec.size
        case .encrypted(let chunk): chunk.size
        }
    }
}

/// A chunk of a file's encrypted stream, made from the source piece by piece as FPUT sends it
/// (`EncryptedStreamReader`); the tag is needed only by the chunk that ends the stream.
public struct EncryptedChunk: Sendable {
    public let reader: EncryptedStreamReader
    public let offset: Int64
    public let size: UInt32
    public let tag: [UInt8]?

    public init(reader: EncryptedStreamReader, offset: Int64, size: UInt32, tag: [UInt8]?) {
        self.reader = reader
        self.offset = offset
        self.size = size
        self.tag = tag
    }

    /// Whether the chunk holds (part of) the tag at the stream's end.
    public var endsStream: Bool { offset + Int64(size) > reader.encryptedSize - Int64(FileEncryption.authTagSize) }
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
