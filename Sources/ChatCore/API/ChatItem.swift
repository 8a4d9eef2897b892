/// A message or event in a chat (TYPES.md ChatItem) and its parts.
public struct ChatItem: Codable, Sendable, Hashable {
    public var chatDir: CIDirection
    public var meta: CIMeta
    public var content: CIContent
    /// Mentions in the text, by the name used.
    public var mentions: [String: CIMention]
    /// The parsed markdown of the text, nil when it has none.
    public var formattedText: [FormattedText]?
    public var quotedItem: CIQuote?
    public var reactions: [CIReactionCount]
    public var file: CIFile?

    public init(
        chatDir: CIDirection, meta: CIMeta, content: CIContent, mentions: [String: CIMention] = [:],
        formattedText: [FormattedText]? = nil, quotedItem: CIQuote? = nil, reactions: [CIReactionCount] = [],
        file: CIFile? = nil
    ) {
        self.chatDir = chatDir
        self.meta = meta
        self.content = content
        self.mentions = mentions
        self.formattedText = formattedText
        self.quotedItem = quotedItem
        self.reactions = reactions
        self.file = file
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        chatDir = try c.v("chatDir")
        meta = try c.v("meta")
        content = try c.v("content")
        mentions = try c.v("mentions", default: [:])
        formattedText = try c.opt("formattedText")
        quotedItem = try c.opt("quotedItem")
        reactions = try c.v("reactions", default: [])
        file = try c.opt("file")
    }
}

/// Who sent an item, relative to the user (TYPES.md CIDirection).
public enum CIDirection: Sendable, Hashable, Codable {
    case directSnd
    case directRcv
    case groupSnd
    /// Optional because newer simplex-chat omits the member for channel messages.
    case groupRcv(groupMember: GroupMember?)
    case localSnd
    case localRcv

    public var sent: Bool {
        switch self {
        case .directSnd, .groupSnd, .localSnd: true
        case .directRcv, .groupRcv, .localRcv: false
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "directSnd": self = .directSnd
        case "directRcv": self = .directRcv
        case "groupSnd": self = .groupSnd
        case "groupRcv": self = try .groupRcv(groupMember: c.opt("groupMember"))
        case "localSnd": self = .localSnd
        case "localRcv": self = .localRcv
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown CIDirection \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .directSnd: try c.tag("directSnd")
        case .directRcv: try c.tag("directRcv")
        case .groupSnd: try c.tag("groupSnd")
        case .groupRcv(let m):
            try c.tag("groupRcv")
            try c.put(m, "groupMember")
        case .localSnd: try c.tag("localSnd")
        case .localRcv: try c.tag("localRcv")
        }
    }
}

/// Item metadata (TYPES.md CIMeta).
public struct CIMeta: Codable, Sendable, Hashable {
    public var itemId: Int64
    public var itemTs: UTCTime
    public var itemText: String
    public var itemStatus: CIStatus
    public var sentViaProxy: Bool?
    public var itemSharedMsgId: String?
    public var itemForwarded: CIForwardedFrom?
    public var itemDeleted: CIDeleted?
    public var itemEdited: Bool
    public var itemTimed: CITimed?
    public var itemLive: Bool?
    public var userMention: Bool
    /// Added in later simplex-chat versions; omitted when nil.
    public var hasLink: Bool?
    public var deletable: Bool
    public var editable: Bool
    public var forwardedByMember: Int64?
    public var showGroupAsSender: Bool
    public var createdAt: UTCTime
    public var updatedAt: UTCTime

    public init(
        itemId: Int64, itemTs: UTCTime, itemText: String, itemStatus: CIStatus, sentViaProxy: Bool? = nil,
        itemSharedMsgId: String? = nil, itemForwarded: CIForwardedFrom? = nil, itemDeleted: CIDeleted? = nil,
        itemEdited: Bool = false, itemTimed: CITimed? = nil, itemLive: Bool? = nil, userMention: Bool = false,
        hasLink: Bool? = nil, deletable: Bool = true, editable: Bool = true, forwardedByMember: Int64? = nil,
        showGroupAsSender: Bool = false, createdAt: UTCTime, updatedAt: UTCTime
    ) {
        self.itemId = itemId
        self.itemTs = itemTs
        self.itemText = itemText
        self.itemStatus = itemStatus
        self.sentViaProxy = sentViaProxy
        self.itemSharedMsgId = itemSharedMsgId
        self.itemForwarded = itemForwarded
        self.itemDeleted = itemDeleted
        self.itemEdited = itemEdited
        self.itemTimed = itemTimed
        self.itemLive = itemLive
        self.userMention = userMention
        self.hasLink = hasLink
        self.deletable = deletable
        self.editable = editable
        self.forwardedByMember = forwardedByMember
        self.showGroupAsSender = showGroupAsSender
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        itemId = try c.v("itemId")
        itemTs = try c.v("itemTs")
        itemText = try c.v("itemText")
        itemStatus = try c.v("itemStatus")
        sentViaProxy = try c.opt("sentViaProxy")
        itemSharedMsgId = try c.opt("itemSharedMsgId")
        itemForwarded = try c.opt("itemForwarded")
        itemDeleted = try c.opt("itemDeleted")
        itemEdited = try c.v("itemEdited", default: false)
        itemTimed = try c.opt("itemTimed")
        itemLive = try c.opt("itemLive")
        userMention = try c.v("userMention", default: false)
        hasLink = try c.opt("hasLink")
        deletable = try c.v("deletable")
        editable = try c.v("editable")
        forwardedByMember = try c.opt("forwardedByMember")
        showGroupAsSender = try c.v("showGroupAsSender", default: false)
        createdAt = try c.v("createdAt")
        updatedAt = try c.v("updatedAt")
    }
}

/// Disappearing-message timing (TYPES.md CITimed).
public struct CITimed: Codable, Sendable, Hashable {
    public var ttl: Int
    public var deleteAt: UTCTime?
    public init(ttl: Int, deleteAt: UTCTime? = nil) {
        self.ttl = ttl
        self.deleteAt = deleteAt
    }
}

/// TYPES.md SndCIStatusProgress.
public enum SndCIStatusProgress: String, Codable, Sendable, Hashable {
    case partial, complete
}

/// TYPES.md MsgReceiptStatus.
public enum MsgReceiptStatus: String, Codable, Sendable, Hashable {
    case ok, badMsgHash
}

/// Delivery status of an item (TYPES.md CIStatus).
public enum CIStatus: Sendable, Hashable, Codable {
    case sndNew
    case sndSent(sndProgress: SndCIStatusProgress)
    case sndRcvd(msgRcptStatus: MsgReceiptStatus, sndProgress: SndCIStatusProgress)
    case sndErrorAuth
    case sndError(agentError: SndError)
    case sndWarning(agentError: SndError)
    case rcvNew
    case rcvRead
    case invalid(text: String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "sndNew": self = .sndNew
        case "sndSent": self = try .sndSent(sndProgress: c.v("sndProgress"))
        case "sndRcvd": self = try .sndRcvd(msgRcptStatus: c.v("msgRcptStatus"), sndProgress: c.v("sndProgress"))
        case "sndErrorAuth": self = .sndErrorAuth
        case "sndError": self = try .sndError(agentError: c.v("agentError"))
        case "sndWarning": self = try .sndWarning(agentError: c.v("agentError"))
        case "rcvNew": self = .rcvNew
        case "rcvRead": self = .rcvRead
        case "invalid": self = try .invalid(text: c.v("text"))
        case let t: self = .invalid(text: "unknown status \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .sndNew: try c.tag("sndNew")
        case .sndSent(let p):
            try c.tag("sndSent")
            try c.put(p, "sndProgress")
        case .sndRcvd(let s, let p):
            try c.tag("sndRcvd")
            try c.put(s, "msgRcptStatus")
            try c.put(p, "sndProgress")
        case .sndErrorAuth: try c.tag("sndErrorAuth")
        case .sndError(let e):
            try c.tag("sndError")
            try c.put(e, "agentError")
        case .sndWarning(let e):
            try c.tag("sndWarning")
            try c.put(e, "agentError")
        case .rcvNew: try c.tag("rcvNew")
        case .rcvRead: try c.tag("rcvRead")
        case .invalid(let t):
            try c.tag("invalid")
            try c.put(t, "text")
        }
    }
}

/// Why sending failed (TYPES.md SndError).
public enum SndError: Sendable, Hashable, Codable {
    case auth
    case quota
    case expired
    case relay(srvError: SrvError)
    case proxy(proxyServer: String, srvError: SrvError)
    case proxyRelay(proxyServer: String, srvError: SrvError)
    case other(sndError: String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "auth": self = .auth
        case "quota": self = .quota
        case "expired": self = .expired
        case "relay": self = try .relay(srvError: c.v("srvError"))
        case "proxy": self = try .proxy(proxyServer: c.v("proxyServer"), srvError: c.v("srvError"))
        case "proxyRelay": self = try .proxyRelay(proxyServer: c.v("proxyServer"), srvError: c.v("srvError"))
        case "other": self = try .other(sndError: c.v("sndError"))
        case let t: self = .other(sndError: "unknown error \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .auth: try c.tag("auth")
        case .quota: try c.tag("quota")
        case .expired: try c.tag("expired")
        case .relay(let e):
            try c.tag("relay")
            try c.put(e, "srvError")
        case .proxy(let s, let e):
            try c.tag("proxy")
            try c.put(s, "proxyServer")
            try c.put(e, "srvError")
        case .proxyRelay(let s, let e):
            try c.tag("proxyRelay")
            try c.put(s, "proxyServer")
            try c.put(e, "srvError")
        case .other(let e):
            try c.tag("other")
            try c.put(e, "sndError")
        }
    }
}

/// A server-side error in delivery (TYPES.md SrvError).
public enum SrvError: Sendable, Hashable, Codable {
    case host
    case version
    case other(srvError: String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "host": self = .host
        case "version": self = .version
        case "other": self = try .other(srvError: c.v("srvError"))
        case let t: self = .other(srvError: "unknown error \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .host: try c.tag("host")
        case .version: try c.tag("version")
        case .other(let e):
            try c.tag("other")
            try c.put(e, "srvError")
        }
    }
}

/// How an item was deleted while kept visible as "deleted" (TYPES.md CIDeleted).
public enum CIDeleted: Sendable, Hashable, Codable {
    case deleted(deletedTs: UTCTime?, chatType: ChatType)
    case blocked(deletedTs: UTCTime?)
    case blockedByAdmin(deletedTs: UTCTime?)
    case moderated(deletedTs: UTCTime?, byGroupMember: GroupMember)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "deleted": self = try .deleted(deletedTs: c.opt("deletedTs"), chatType: c.v("chatType", default: .direct))
        case "blocked": self = try .blocked(deletedTs: c.opt("deletedTs"))
        case "blockedByAdmin": self = try .blockedByAdmin(deletedTs: c.opt("deletedTs"))
        case "moderated": self = try .moderated(deletedTs: c.opt("deletedTs"), byGroupMember: c.v("byGroupMember"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown CIDeleted \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .deleted(let ts, let chatType):
            try c.tag("deleted")
            try c.put(ts, "deletedTs")
            try c.put(chatType, "chatType")
        case .blocked(let ts):
            try c.tag("blocked")
            try c.put(ts, "deletedTs")
        case .blockedByAdmin(let ts):
            try c.tag("blockedByAdmin")
            try c.put(ts, "deletedTs")
        case .moderated(let ts, let member):
            try c.tag("moderated")
            try c.put(ts, "deletedTs")
            try c.put(member, "byGroupMember")
        }
    }
}

/// TYPES.md MsgDirection.
public enum MsgDirection: String, Codable, Sendable, Hashable {
    case rcv, snd
}

/// Where a forwarded item came from (TYPES.md CIForwardedFrom).
public enum CIForwardedFrom: Sendable, Hashable, Codable {
    case unknown
    case contact(chatName: String, msgDir: MsgDirection, contactId: Int64?, chatItemId: Int64?)
    case group(chatName: String, msgDir: MsgDirection, groupId: Int64?, chatItemId: Int64?)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "contact":
            self = try .contact(chatName: c.v("chatName"), msgDir: c.v("msgDir"), contactId: c.opt("contactId"), chatItemId: c.opt("chatItemId"))
        case "group":
            self = try .group(chatName: c.v("chatName"), msgDir: c.v("msgDir"), groupId: c.opt("groupId"), chatItemId: c.opt("chatItemId"))
        default: self = .unknown
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .unknown: try c.tag("unknown")
        case .contact(let name, let dir, let id, let itemId):
            try c.tag("contact")
            try c.put(name, "chatName")
            try c.put(dir, "msgDir")
            try c.put(id, "contactId")
            try c.put(itemId, "chatItemId")
        case .group(let name, let dir, let id, let itemId):
            try c.tag("group")
            try c.put(name, "chatName")
            try c.put(dir, "msgDir")
            try c.put(id, "groupId")
            try c.put(itemId, "chatItemId")
        }
    }
}

/// A mention of a group member in an item (TYPES.md CIMention).
public struct CIMention: Codable, Sendable, Hashable {
    public var memberId: String
    public var memberRef: CIMentionMember?
}

/// TYPES.md CIMentionMember.
public struct CIMentionMember: Codable, Sendable, Hashable {
    public var groupMemberId: Int64
    public var displayName: String
    public var localAlias: String?
    public var memberRole: GroupMemberRole
}

/// The quoted (replied-to) item (TYPES.md CIQuote).
public struct CIQuote: Codable, Sendable, Hashable {
    public var chatDir: CIDirection?
    public var itemId: Int64?
    public var sharedMsgId: String?
    public var sentAt: UTCTime
    public var content: MsgContent
    public var formattedText: [FormattedText]?

    public init(
        chatDir: CIDirection?, itemId: Int64?, sharedMsgId: String? = nil, sentAt: UTCTime, content: MsgContent,
        formattedText: [FormattedText]? = nil
    ) {
        self.chatDir = chatDir
        self.itemId = itemId
        self.sharedMsgId = sharedMsgId
        self.sentAt = sentAt
        self.content = content
        self.formattedText = formattedText
    }
}

/// A reaction and the item it is on (TYPES.md CIReaction).
public struct CIReaction: Codable, Sendable, Hashable {
    public var chatDir: CIDirection
    public var chatItem: ChatItem
    public var sentAt: UTCTime
    public var reaction: MsgReaction

    public init(chatDir: CIDirection, chatItem: ChatItem, sentAt: UTCTime, reaction: MsgReaction) {
        self.chatDir = chatDir
        self.chatItem = chatItem
        self.sentAt = sentAt
        self.reaction = reaction
    }
}

/// Reaction totals on an item (TYPES.md CIReactionCount).
public struct CIReactionCount: Codable, Sendable, Hashable {
    public var reaction: MsgReaction
    public var userReacted: Bool
    public var totalReacted: Int

    public init(reaction: MsgReaction, userReacted: Bool, totalReacted: Int) {
        self.reaction = reaction
        self.userReacted = userReacted
        self.totalReacted = totalReacted
    }
}

/// A chat item with its chat (TYPES.md AChatItem).
public struct AChatItem: Codable, Sendable, Hashable {
    public var chatInfo: ChatInfo
    public var chatItem: ChatItem

    public init(chatInfo: ChatInfo, chatItem: ChatItem) {
        self.chatInfo = chatInfo
        self.chatItem = chatItem
    }
}

/// A reaction with its chat (TYPES.md ACIReaction).
public struct ACIReaction: Codable, Sendable, Hashable {
    public var chatInfo: ChatInfo
    public var chatReaction: CIReaction

    public init(chatInfo: ChatInfo, chatReaction: CIReaction) {
        self.chatInfo = chatInfo
        self.chatReaction = chatReaction
    }
}

/// The result of deleting one item: the item as it was, and what replaced it when it is kept
/// as "deleted" (TYPES.md ChatItemDeletion).
public struct ChatItemDeletion: Codable, Sendable, Hashable {
    public var deletedChatItem: AChatItem
    public var toChatItem: AChatItem?

    public init(deletedChatItem: AChatItem, toChatItem: AChatItem?) {
        self.deletedChatItem = deletedChatItem
        self.toChatItem = toChatItem
    }
}

/// How to delete items (TYPES.md CIDeleteMode).
public enum CIDeleteMode: String, Codable, Sendable, Hashable, CaseIterable {
    /// For everyone.
    case broadcast
    /// Only here.
    case `internal`
    /// Only here, keeping a "deleted" mark.
    case internalMark
}

/// A file attached to an item (TYPES.md CIFile).
public struct CIFile: Codable, Sendable, Hashable {
    public var fileId: Int64
    public var fileName: String
    public var fileSize: Int64
    public var fileSource: CryptoFile?
    public var fileStatus: CIFileStatus
    public var fileProtocol: FileProtocol
}

/// TYPES.md FileProtocol.
public enum FileProtocol: String, Codable, Sendable, Hashable {
    case smp, xftp, local
}

/// Transfer state of an item's file (TYPES.md CIFileStatus).
public enum CIFileStatus: Sendable, Hashable, Codable {
    case sndStored
    case sndTransfer(sndProgress: Int64, sndTotal: Int64)
    case sndCancelled
    case sndComplete
    case sndError(sndFileError: FileError)
    case sndWarning(sndFileError: FileError)
    case rcvInvitation
    case rcvAccepted
    case rcvTransfer(rcvProgress: Int64, rcvTotal: Int64)
    case rcvAborted
    case rcvComplete
    case rcvCancelled
    case rcvError(rcvFileError: FileError)
    case rcvWarning(rcvFileError: FileError)
    case invalid(text: String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "sndStored": self = .sndStored
        case "sndTransfer": self = try .sndTransfer(sndProgress: c.v("sndProgress"), sndTotal: c.v("sndTotal"))
        case "sndCancelled": self = .sndCancelled
        case "sndComplete": self = .sndComplete
        case "sndError": self = try .sndError(sndFileError: c.v("sndFileError"))
        case "sndWarning": self = try .sndWarning(sndFileError: c.v("sndFileError"))
        case "rcvInvitation": self = .rcvInvitation
        case "rcvAccepted": self = .rcvAccepted
        case "rcvTransfer": self = try .rcvTransfer(rcvProgress: c.v("rcvProgress"), rcvTotal: c.v("rcvTotal"))
        case "rcvAborted": self = .rcvAborted
        case "rcvComplete": self = .rcvComplete
        case "rcvCancelled": self = .rcvCancelled
        case "rcvError": self = try .rcvError(rcvFileError: c.v("rcvFileError"))
        case "rcvWarning": self = try .rcvWarning(rcvFileError: c.v("rcvFileError"))
        case "invalid": self = try .invalid(text: c.v("text"))
        case let t: self = .invalid(text: "unknown file status \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .sndStored: try c.tag("sndStored")
        case .sndTransfer(let p, let t):
            try c.tag("sndTransfer")
            try c.put(p, "sndProgress")
            try c.put(t, "sndTotal")
        case .sndCancelled: try c.tag("sndCancelled")
        case .sndComplete: try c.tag("sndComplete")
        case .sndError(let e):
            try c.tag("sndError")
            try c.put(e, "sndFileError")
        case .sndWarning(let e):
            try c.tag("sndWarning")
            try c.put(e, "sndFileError")
        case .rcvInvitation: try c.tag("rcvInvitation")
        case .rcvAccepted: try c.tag("rcvAccepted")
        case .rcvTransfer(let p, let t):
            try c.tag("rcvTransfer")
            try c.put(p, "rcvProgress")
            try c.put(t, "rcvTotal")
        case .rcvAborted: try c.tag("rcvAborted")
        case .rcvComplete: try c.tag("rcvComplete")
        case .rcvCancelled: try c.tag("rcvCancelled")
        case .rcvError(let e):
            try c.tag("rcvError")
            try c.put(e, "rcvFileError")
        case .rcvWarning(let e):
            try c.tag("rcvWarning")
            try c.put(e, "rcvFileError")
        case .invalid(let t):
            try c.tag("invalid")
            try c.put(t, "text")
        }
    }
}

/// A file transfer error (TYPES.md FileError).
public enum FileError: Sendable, Hashable, Codable {
    case auth
    case blocked(server: String, blockInfo: BlockingInfo)
    case noFile
    case relay(srvError: SrvError)
    case other(fileError: String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "auth": self = .auth
        case "blocked": self = try .blocked(server: c.v("server"), blockInfo: c.v("blockInfo"))
        case "noFile": self = .noFile
        case "relay": self = try .relay(srvError: c.v("srvError"))
        case "other": self = try .other(fileError: c.v("fileError"))
        case let t: self = .other(fileError: "unknown error \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .auth: try c.tag("auth")
        case .blocked(let s, let info):
            try c.tag("blocked")
            try c.put(s, "server")
            try c.put(info, "blockInfo")
        case .noFile: try c.tag("noFile")
        case .relay(let e):
            try c.tag("relay")
            try c.put(e, "srvError")
        case .other(let e):
            try c.tag("other")
            try c.put(e, "fileError")
        }
    }
}
