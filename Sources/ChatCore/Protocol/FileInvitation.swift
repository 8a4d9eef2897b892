/// An offer of a file attached to a message (`x.msg.new` `file`). With XFTP the file description
/// travels in `fileDescr` (or in following `x.msg.file.descr` parts); `fileConnReq` and
/// `fileInline` belong to the older SMP file transfer.
public struct FileInvitation: Codable, Sendable, Hashable {
    public var fileName: String
    public var fileSize: Int64
    public var fileDigest: FileDigest?
    /// A connection link to receive the file (direct chats, legacy transfer).
    public var fileConnReq: String?
    public var fileInline: InlineFileMode?
    public var fileDescr: FileDescr?

    public init(
        fileName: String, fileSize: Int64, fileDigest: FileDigest? = nil, fileConnReq: String? = nil,
        fileInline: InlineFileMode? = nil, fileDescr: FileDescr? = nil
    ) {
        self.fileName = fileName
        self.fileSize = fileSize
        self.fileDigest = fileDigest
        self.fileConnReq = fileConnReq
        self.fileInline = fileInline
        self.fileDescr = fileDescr
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ChatProtocolKey.self)
        fileName = try c.req("fileName")
        fileSize = try c.req("fileSize")
        fileDigest = try c.opt("fileDigest")
        fileConnReq = try c.opt("fileConnReq")
        fileInline = try c.opt("fileInline")
        fileDescr = try c.opt("fileDescr")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChatProtocolKey.self)
        try c.set(fileName, "fileName")
        try c.set(fileSize, "fileSize")
        try c.set(fileDigest, "fileDigest")
        try c.set(fileConnReq, "fileConnReq")
        try c.set(fileInline, "fileInline")
        try c.set(fileDescr, "fileDescr")
    }
}

/// How a small file is sent inside the chat connection instead of a file connection (legacy).
public enum InlineFileMode: String, Codable, Sendable, Hashable {
    /// Sent inline once accepted.
    case offer
    /// Sent inline without acceptance.
    case sent
}

/// One part of an XFTP file description; a description too large for one message is split into
/// numbered parts and the recipient starts downloading when `fileDescrComplete` arrives.
public struct FileDescr: Codable, Sendable, Hashable {
    public var fileDescrText: String
    public var fileDescrPartNo: Int
    public var fileDescrComplete: Bool

    public init(fileDescrText: String, fileDescrPartNo: Int, fileDescrComplete: Bool) {
        self.fileDescrText = fileDescrText
        self.fileDescrPartNo = fileDescrPartNo
        self.fileDescrComplete = fileDescrComplete
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ChatProtocolKey.self)
        fileDescrText = try c.req("fileDescrText")
        fileDescrPartNo = try c.req("fileDescrPartNo")
        fileDescrComplete = try c.req("fileDescrComplete")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChatProtocolKey.self)
        try c.set(fileDescrText, "fileDescrText")
        try c.set(fileDescrPartNo, "fileDescrPartNo")
        try c.set(fileDescrComplete, "fileDescrComplete")
    }
}
