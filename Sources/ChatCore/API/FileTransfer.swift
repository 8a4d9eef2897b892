/// The file transfer records of the API (TYPES.md RcvFileTransfer, FileTransferMeta,
/// SndFileTransfer and their parts), as simplex-chat's events and responses carry them.

/// A received file's transfer (TYPES.md RcvFileTransfer). XFTP files always have `xftpRcvFile`.
public struct RcvFileTransfer: Codable, Sendable, Hashable {
    public var fileId: Int64
    public var xftpRcvFile: XFTPRcvFile?
    public var fileInvitation: FileInvitation
    public var fileStatus: RcvFileStatus
    public var rcvFileInline: InlineFileMode?
    public var senderDisplayName: String
    public var chunkSize: Int64
    public var cancelled: Bool
    public var grpMemberId: Int64?
    public var cryptoArgs: CryptoFileArgs?
}

/// TYPES.md XFTPRcvFile: the description received so far and the agent's side of the download.
public struct XFTPRcvFile: Codable, Sendable, Hashable {
    public var rcvFileDescription: RcvFileDescr
    public var agentRcvFileId: String?
    public var agentRcvFileDeleted: Bool
    public var userApprovedRelays: Bool
}

/// TYPES.md RcvFileDescr: the recipient description, assembled from `x.msg.file.descr` parts.
public struct RcvFileDescr: Codable, Sendable, Hashable {
    public var fileDescrId: Int64
    public var fileDescrText: String
    public var fileDescrPartNo: Int
    public var fileDescrComplete: Bool
}

/// TYPES.md RcvFileStatus: `{"type": "new"}`, `{"type": "accepted", "filePath": ...}`...
public enum RcvFileStatus: Sendable, Hashable, Codable {
    case new
    case accepted(filePath: String)
    case connected(filePath: String)
    case complete(filePath: String)
    case cancelled(filePath_: String?)

    /// The column value (`rcv_status`).
    var name: String {
        switch self {
        case .new: "new"
        case .accepted: "accepted"
        case .connected: "connected"
        case .complete: "complete"
        case .cancelled: "cancelled"
        }
    }

    init(name: String, filePath: String?) {
        switch (name, filePath) {
        case ("accepted", let p?): self = .accepted(filePath: p)
        case ("connected", let p?): self = .connected(filePath: p)
        case ("complete", let p?): self = .complete(filePath: p)
        case ("cancelled", let p): self = .cancelled(filePath_: p)
        default: self = .new
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "new": self = .new
        case "accepted": self = try .accepted(filePath: c.v("filePath"))
        case "connected": self = try .connected(filePath: c.v("filePath"))
        case "complete": self = try .complete(filePath: c.v("filePath"))
        case "cancelled": self = try .cancelled(filePath_: c.opt("filePath_"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown RcvFileStatus \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.tag(name)
        switch self {
        case .new: break
        case .accepted(let p), .connected(let p), .complete(let p): try c.put(p, "filePath")
        case .cancelled(let p): try c.put(p, "filePath_")
        }
    }
}

/// A sent file (TYPES.md FileTransferMeta).
public struct FileTransferMeta: Codable, Sendable, Hashable {
    public var fileId: Int64
    public var xftpSndFile: XFTPSndFile?
    public var xftpRedirectFor: Int64?
    public var fileName: String
    public var filePath: String
    public var fileSize: Int64
    public var fileInline: InlineFileMode?
    public var chunkSize: Int64
    public var cancelled: Bool
}

/// TYPES.md XFTPSndFile: the upload's id and, once uploaded, the sender's own description.
public struct XFTPSndFile: Codable, Sendable, Hashable {
    public var agentSndFileId: String
    public var privateSndFileDescr: String?
    public var agentSndFileDeleted: Bool
    public var cryptoArgs: CryptoFileArgs?
}

/// One recipient of a sent file (TYPES.md SndFileTransfer).
public struct SndFileTransfer: Codable, Sendable, Hashable {
    public var fileId: Int64
    public var fileName: String
    public var filePath: String
    public var fileSize: Int64
    public var chunkSize: Int64
    public var recipientDisplayName: String
    public var connId: Int64
    public var agentConnId: String
    public var groupMemberId: Int64?
    public var fileStatus: FileStatus
    public var fileDescrId: Int64?
    public var fileInline: InlineFileMode?
}

/// TYPES.md FileStatus.
public enum FileStatus: String, Codable, Sendable, Hashable {
    case new, accepted, connected, complete, cancelled
}

extension CIFile {
    init(fileId: Int64, fileName: String, fileSize: Int64, fileSource: CryptoFile?, fileStatus: CIFileStatus) {
        self.fileId = fileId
        self.fileName = fileName
        self.fileSize = fileSize
        self.fileSource = fileSource
        self.fileStatus = fileStatus
        self.fileProtocol = .xftp
    }
}

extension CIFileStatus {
    /// Cancelled, complete or failed: nothing more will happen to the file (`ciFileEnded`).
    var ended: Bool {
        switch self {
        case .sndCancelled, .sndComplete, .sndError, .rcvCancelled, .rcvComplete, .rcvError, .rcvAborted, .invalid: true
        default: false
        }
    }
}
