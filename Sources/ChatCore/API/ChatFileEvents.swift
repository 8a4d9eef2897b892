/// File events (EVENTS.md "File events" and the XFTP progress events), carried by
/// `ChatEvent.file`; on the wire each is a plain `{"type": "rcvFileComplete", ...}` like any event.
public enum ChatFileEvent: Sendable, Hashable, Codable {
    case rcvFileDescrReady(user: User, chatItem: AChatItem, rcvFileTransfer: RcvFileTransfer, rcvFileDescr: RcvFileDescr)
    /// Accepted without a command (auto-accept of small files).
    case rcvFileAccepted(user: User, chatItem: AChatItem)
    case rcvFileStart(user: User, chatItem: AChatItem)
    case rcvFileProgressXFTP(user: User, chatItem_: AChatItem?, receivedSize: Int64, totalSize: Int64, rcvFileTransfer: RcvFileTransfer)
    case rcvFileComplete(user: User, chatItem: AChatItem)
    case rcvFileSndCancelled(user: User, chatItem: AChatItem, rcvFileTransfer: RcvFileTransfer)
    case rcvFileError(user: User, chatItem_: AChatItem?, agentError: AgentErrorType, rcvFileTransfer: RcvFileTransfer)
    case rcvFileWarning(user: User, chatItem_: AChatItem?, agentError: AgentErrorType, rcvFileTransfer: RcvFileTransfer)
    case sndFileProgressXFTP(user: User, chatItem_: AChatItem?, fileTransferMeta: FileTransferMeta, sentSize: Int64, totalSize: Int64)
    case sndFileCompleteXFTP(user: User, chatItem: AChatItem, fileTransferMeta: FileTransferMeta)
    case sndFileError(user: User, chatItem_: AChatItem?, fileTransferMeta: FileTransferMeta, errorMessage: String)
    case sndFileWarning(user: User, chatItem_: AChatItem?, fileTransferMeta: FileTransferMeta, errorMessage: String)

    static let tags: Set<String> = [
        "rcvFileDescrReady", "rcvFileAccepted", "rcvFileStart", "rcvFileProgressXFTP", "rcvFileComplete", "rcvFileSndCancelled",
        "rcvFileError", "rcvFileWarning", "sndFileProgressXFTP", "sndFileCompleteXFTP", "sndFileError", "sndFileWarning",
    ]

    public var tag: String {
        switch self {
        case .rcvFileDescrReady: "rcvFileDescrReady"
        case .rcvFileAccepted: "rcvFileAccepted"
        case .rcvFileStart: "rcvFileStart"
        case .rcvFileProgressXFTP: "rcvFileProgressXFTP"
        case .rcvFileComplete: "rcvFileComplete"
        case .rcvFileSndCancelled: "rcvFileSndCancelled"
        case .rcvFileError: "rcvFileError"
        case .rcvFileWarning: "rcvFileWarning"
        case .sndFileProgressXFTP: "sndFileProgressXFTP"
        case .sndFileCompleteXFTP: "sndFileCompleteXFTP"
        case .sndFileError: "sndFileError"
        case .sndFileWarning: "sndFileWarning"
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "rcvFileDescrReady":
            self = try .rcvFileDescrReady(user: c.v("user"), chatItem: c.v("chatItem"), rcvFileTransfer: c.v("rcvFileTransfer"), rcvFileDescr: c.v("rcvFileDescr"))
        case "rcvFileAccepted": self = try .rcvFileAccepted(user: c.v("user"), chatItem: c.v("chatItem"))
        case "rcvFileStart": self = try .rcvFileStart(user: c.v("user"), chatItem: c.v("chatItem"))
        case "rcvFileProgressXFTP":
            self = try .rcvFileProgressXFTP(user: c.v("user"), chatItem_: c.opt("chatItem_"), receivedSize: c.v("receivedSize"),
                                            totalSize: c.v("totalSize"), rcvFileTransfer: c.v("rcvFileTransfer"))
        case "rcvFileComplete": self = try .rcvFileComplete(user: c.v("user"), chatItem: c.v("chatItem"))
        case "rcvFileSndCancelled": self = try .rcvFileSndCancelled(user: c.v("user"), chatItem: c.v("chatItem"), rcvFileTransfer: c.v("rcvFileTransfer"))
        case "rcvFileError":
            self = try .rcvFileError(user: c.v("user"), chatItem_: c.opt("chatItem_"), agentError: c.v("agentError"), rcvFileTransfer: c.v("rcvFileTransfer"))
        case "rcvFileWarning":
            self = try .rcvFileWarning(user: c.v("user"), chatItem_: c.opt("chatItem_"), agentError: c.v("agentError"), rcvFileTransfer: c.v("rcvFileTransfer"))
        case "sndFileProgressXFTP":
            self = try .sndFileProgressXFTP(user: c.v("user"), chatItem_: c.opt("chatItem_"), fileTransferMeta: c.v("fileTransferMeta"),
                                            sentSize: c.v("sentSize"), totalSize: c.v("totalSize"))
        case "sndFileCompleteXFTP": self = try .sndFileCompleteXFTP(user: c.v("user"), chatItem: c.v("chatItem"), fileTransferMeta: c.v("fileTransferMeta"))
        case "sndFileError":
            self = try .sndFileError(user: c.v("user"), chatItem_: c.opt("chatItem_"), fileTransferMeta: c.v("fileTransferMeta"), errorMessage: c.v("errorMessage"))
        case "sndFileWarning":
            self = try .sndFileWarning(user: c.v("user"), chatItem_: c.opt("chatItem_"), fileTransferMeta: c.v("fileTransferMeta"), errorMessage: c.v("errorMessage"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "not a file event \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.tag(tag)
        switch self {
        case .rcvFileDescrReady(let user, let item, let ft, let fd):
            try c.put(user, "user")
            try c.put(item, "chatItem")
            try c.put(ft, "rcvFileTransfer")
            try c.put(fd, "rcvFileDescr")
        case .rcvFileAccepted(let user, let item), .rcvFileStart(let user, let item), .rcvFileComplete(let user, let item):
            try c.put(user, "user")
            try c.put(item, "chatItem")
        case .rcvFileProgressXFTP(let user, let item, let received, let total, let ft):
            try c.put(user, "user")
            try c.put(item, "chatItem_")
            try c.put(received, "receivedSize")
            try c.put(total, "totalSize")
            try c.put(ft, "rcvFileTransfer")
        case .rcvFileSndCancelled(let user, let item, let ft):
            try c.put(user, "user")
            try c.put(item, "chatItem")
            try c.put(ft, "rcvFileTransfer")
        case .rcvFileError(let user, let item, let e, let ft), .rcvFileWarning(let user, let item, let e, let ft):
            try c.put(user, "user")
            try c.put(item, "chatItem_")
            try c.put(e, "agentError")
            try c.put(ft, "rcvFileTransfer")
        case .sndFileProgressXFTP(let user, let item, let meta, let sent, let total):
            try c.put(user, "user")
            try c.put(item, "chatItem_")
            try c.put(meta, "fileTransferMeta")
            try c.put(sent, "sentSize")
            try c.put(total, "totalSize")
        case .sndFileCompleteXFTP(let user, let item, let meta):
            try c.put(user, "user")
            try c.put(item, "chatItem")
            try c.put(meta, "fileTransferMeta")
        case .sndFileError(let user, let item, let meta, let msg), .sndFileWarning(let user, let item, let meta, let msg):
            try c.put(user, "user")
            try c.put(item, "chatItem_")
            try c.put(meta, "fileTransferMeta")
            try c.put(msg, "errorMessage")
        }
    }
}

/// Answers of the file commands (`/freceive`, `/fcancel`, `/fstatus`), carried by
/// `ChatResponse.file`; on the wire a plain `{"type": "rcvFileAccepted", ...}`.
public enum ChatFileResponse: Sendable, Hashable, Codable {
    case rcvFileAccepted(user: User, chatItem: AChatItem)
    case rcvFileAcceptedSndCancelled(user: User, rcvFileTransfer: RcvFileTransfer)
    case rcvFileCancelled(user: User, chatItem_: AChatItem?, rcvFileTransfer: RcvFileTransfer)
    case sndFileCancelled(user: User, chatItem_: AChatItem?, fileTransferMeta: FileTransferMeta, sndFileTransfers: [SndFileTransfer])
    case fileTransferStatusXFTP(user: User, chatItem: AChatItem)

    static let tags: Set<String> = ["rcvFileAccepted", "rcvFileAcceptedSndCancelled", "rcvFileCancelled", "sndFileCancelled", "fileTransferStatusXFTP"]

    public var tag: String {
        switch self {
        case .rcvFileAccepted: "rcvFileAccepted"
        case .rcvFileAcceptedSndCancelled: "rcvFileAcceptedSndCancelled"
        case .rcvFileCancelled: "rcvFileCancelled"
        case .sndFileCancelled: "sndFileCancelled"
        case .fileTransferStatusXFTP: "fileTransferStatusXFTP"
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "rcvFileAccepted": self = try .rcvFileAccepted(user: c.v("user"), chatItem: c.v("chatItem"))
        case "rcvFileAcceptedSndCancelled": self = try .rcvFileAcceptedSndCancelled(user: c.v("user"), rcvFileTransfer: c.v("rcvFileTransfer"))
        case "rcvFileCancelled": self = try .rcvFileCancelled(user: c.v("user"), chatItem_: c.opt("chatItem_"), rcvFileTransfer: c.v("rcvFileTransfer"))
        case "sndFileCancelled":
            self = try .sndFileCancelled(user: c.v("user"), chatItem_: c.opt("chatItem_"), fileTransferMeta: c.v("fileTransferMeta"),
                                         sndFileTransfers: c.v("sndFileTransfers"))
        case "fileTransferStatusXFTP": self = try .fileTransferStatusXFTP(user: c.v("user"), chatItem: c.v("chatItem"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "not a file response \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.tag(tag)
        switch self {
        case .rcvFileAccepted(let user, let item), .fileTransferStatusXFTP(let user, let item):
            try c.put(user, "user")
            try c.put(item, "chatItem")
        case .rcvFileAcceptedSndCancelled(let user, let ft):
            try c.put(user, "user")
            try c.put(ft, "rcvFileTransfer")
        case .rcvFileCancelled(let user, let item, let ft):
            try c.put(user, "user")
            try c.put(item, "chatItem_")
            try c.put(ft, "rcvFileTransfer")
        case .sndFileCancelled(let user, let item, let meta, let fts):
            try c.put(user, "user")
            try c.put(item, "chatItem_")
            try c.put(meta, "fileTransferMeta")
            try c.put(fts, "sndFileTransfers")
        }
    }
}

extension ChatFileEvent {
    /// The user and the item the event is about, when it carries one.
    public var userAndItem: (User, AChatItem)? {
        switch self {
        case .rcvFileDescrReady(let u, let i, _, _), .rcvFileAccepted(let u, let i), .rcvFileStart(let u, let i), .rcvFileComplete(let u, let i),
             .rcvFileSndCancelled(let u, let i, _), .sndFileCompleteXFTP(let u, let i, _):
            (u, i)
        case .rcvFileProgressXFTP(let u, let i?, _, _, _), .rcvFileError(let u, let i?, _, _), .rcvFileWarning(let u, let i?, _, _),
             .sndFileProgressXFTP(let u, let i?, _, _, _), .sndFileError(let u, let i?, _, _), .sndFileWarning(let u, let i?, _, _):
            (u, i)
        default:
            nil
        }
    }
}
