/// What a chat message says: the `event` tag with its typed `params`. Events this version does not
/// model (calls, legacy file transfer, newer events) decode as `unknown` and are
/// re-encoded unchanged, so nothing a peer sends fails to decode just for being unfamiliar.
public enum ChatMsgEvent: Sendable, Hashable {
    /// `x.msg.new`: a new chat item.
    case msgNew(MsgContainer)
    /// `x.msg.file.descr`: a further part of the XFTP description of the file in message `msgId`.
    case msgFileDescr(msgId: SharedMsgId, fileDescr: FileDescr)
    /// `x.msg.update`: new content for the sender's earlier message.
    case msgUpdate(MsgUpdate)
    /// `x.msg.del`: delete a message; `memberId` names its sender when a moderator deletes it.
    case msgDel(msgId: SharedMsgId, memberId: MemberId? = nil, scope: MsgScope? = nil)
    /// `x.msg.deleted`: no params.
    case msgDeleted
    /// `x.msg.react`: add or remove a reaction to a message (`memberId` of its sender in groups).
    case msgReact(msgId: SharedMsgId, memberId: MemberId? = nil, scope: MsgScope? = nil, reaction: MsgReaction, add: Bool)
    /// `x.file.cancel`: the sender cancelled the file of message `msgId`.
    case fileCancel(msgId: SharedMsgId)
    /// `x.info`: the sender's profile (handshake and profile updates).
    case info(Profile)
    /// `x.contact`: a contact request to an address. `contactReqId` marks repeats of one request,
    /// `welcomeMsgId` is the address's welcome message, `requestMsg` the message sent with it.
    case contact(profile: Profile, contactReqId: XContactId? = nil, welcomeMsgId: SharedMsgId? = nil, requestMsg: RequestMsg? = nil)
    /// `x.direct.del`: the contact deleted the conversation.
    case directDel
    /// `x.ok`: connection handshake.
    case ok
    /// `x.grp.inv`: an invitation to a group, over the direct connection.
    case grpInv(GroupInvitation)
    /// `x.grp.acpt`: the invitee's answer in the member connection handshake.
    case grpAcpt(memberId: MemberId)
    /// `x.grp.link.inv`: the host's handshake message to a member joining through the group link.
    case grpLinkInv(GroupLinkInvitation)
    /// `x.grp.link.mem`: the host's profile, to a member who joined through the group link.
    case grpLinkMem(profile: Profile)
    /// `x.grp.link.reject` (chat version 14+): the host refuses a join through its group link.
    case grpLinkReject(GroupLinkRejection)
    /// `x.grp.link.acpt` (chat version 15+): an admin admits (or moves to review) the pending
    /// member `memberId`, with its role.
    case grpLinkAcpt(acceptance: GroupAcceptance, role: GroupMemberRole, memberId: MemberId)
    /// `x.grp.mem.new`: the host announces a new member to the existing ones.
    /// `scope`: a member under review announced to moderators only (chat version 15).
    case grpMemNew(MemberInfo, scope: MsgScope? = nil)
    /// `x.grp.mem.intro`: the host introduces an existing member to the new one.
    case grpMemIntro(MemberInfo, restrictions: MemberRestrictions?)
    /// `x.grp.mem.inv`: the new member's links for an introduced member, to the host.
    case grpMemInv(memberId: MemberId, intro: IntroInvitation)
    /// `x.grp.mem.fwd`: the host forwards the new member's links to an existing member.
    case grpMemFwd(MemberInfo, intro: IntroInvitation)
    /// `x.grp.mem.info`: a member's ID and profile in the member connection handshake.
    case grpMemInfo(memberId: MemberId, profile: Profile)
    /// `x.grp.mem.con`: two introduced members are connected (to the host).
    case grpMemCon(memberId: MemberId)
    /// `x.grp.mem.role`: a member's new role.
    case grpMemRole(memberId: MemberId, role: GroupMemberRole)
    /// `x.grp.mem.restrict`: a member blocked (or unblocked) for all by an admin.
    case grpMemRestrict(memberId: MemberId, restrictions: MemberRestrictions)
    /// `x.grp.mem.del`: a member removed; `messages` asks to delete their messages too.
    case grpMemDel(memberId: MemberId, messages: Bool?)
    /// `x.grp.leave`: the sender left the group.
    case grpLeave
    /// `x.grp.del`: the owner deleted the group.
    case grpDel
    /// `x.grp.info`: the owner changed the group profile.
    case grpInfo(GroupProfile)
    /// `x.grp.prefs` (chat version 11): the owner changed only the group's preferences (business
    /// chats, where each side keeps its own group name and picture).
    case grpPrefs(GroupPreferences)
    /// `x.grp.direct.inv`: a member's invitation link for a direct contact (with an optional first
    /// message), sent over the member connection.
    case grpDirectInv(connReq: String, content: MsgContent?, scope: MsgScope? = nil)
    /// `x.info.probe`: a contact-merging probe (its hash goes over the peer's other connections).
    case infoProbe(Probe)
    /// `x.info.probe.check`: the hash of a probe sent over another connection.
    case infoProbeCheck(ProbeHash)
    /// `x.info.probe.ok`: the probe matched; the two connections are the same peer.
    case infoProbeOk(Probe)
    /// `x.grp.msg.forward` (chat version 4+): a host relays another member's message to a member
    /// not yet connected to its author. `memberId` names the author (absent for messages sent as
    /// the group), `msgTs` is when the host's relay received it.
    indirect case grpMsgForward(memberId: MemberId?, memberName: String? = nil, msg: ChatMessage, msgTs: UTCTime)
    /// Any other event tag starting with `x` (`x.call.*`,
    /// `x.file`, `x.file.acpt*`, and events of newer versions), with its params
    /// as received.
    case unknown(event: String, params: [String: JSONValue])

    /// The `x.msg.update` params.
    public struct MsgUpdate: Sendable, Hashable {
        public var msgId: SharedMsgId
        public var content: MsgContent
        public var mentions: [String: MsgMention]
        public var ttl: Int?
        public var live: Bool?
        public var scope: MsgScope?
        public var asGroup: Bool?
        public var prefs: MsgPrefs?

        public init(
            msgId: SharedMsgId, content: MsgContent, mentions: [String: MsgMention] = [:], ttl: Int? = nil,
            live: Bool? = nil, scope: MsgScope? = nil, asGroup: Bool? = nil, prefs: MsgPrefs? = nil
        ) {
            self.msgId = msgId
            self.content = content
            self.mentions = mentions
            self.ttl = ttl
            self.live = live
            self.scope = scope
            self.asGroup = asGroup
            self.prefs = prefs
        }
    }

    /// The message sent together with a contact request (`msgId` and `content` in `x.contact` params;
    /// taken only when both are present, as simplex-chat does).
    public struct RequestMsg: Sendable, Hashable {
        public var msgId: SharedMsgId
        public var content: MsgContent

        public init(msgId: SharedMsgId, content: MsgContent) {
            self.msgId = msgId
            self.content = content
        }
    }

    /// The `event` tag on the wire.
    public var tag: String {
        switch self {
        case .msgNew: KnownEventTag.msgNew.rawValue
        case .msgFileDescr: KnownEventTag.msgFileDescr.rawValue
        case .msgUpdate: KnownEventTag.msgUpdate.rawValue
        case .msgDel: KnownEventTag.msgDel.rawValue
        case .msgDeleted: KnownEventTag.msgDeleted.rawValue
        case .msgReact: KnownEventTag.msgReact.rawValue
        case .fileCancel: KnownEventTag.fileCancel.rawValue
        case .info: KnownEventTag.info.rawValue
        case .contact: KnownEventTag.contact.rawValue
        case .directDel: KnownEventTag.directDel.rawValue
        case .ok: KnownEventTag.ok.rawValue
        case .grpInv: KnownEventTag.grpInv.rawValue
        case .grpAcpt: KnownEventTag.grpAcpt.rawValue
        case .grpLinkInv: KnownEventTag.grpLinkInv.rawValue
        case .grpLinkMem: KnownEventTag.grpLinkMem.rawValue
        case .grpLinkReject: KnownEventTag.grpLinkReject.rawValue
        case .grpLinkAcpt: KnownEventTag.grpLinkAcpt.rawValue
        case .grpMemNew: KnownEventTag.grpMemNew.rawValue
        case .grpMemIntro: KnownEventTag.grpMemIntro.rawValue
        case .grpMemInv: KnownEventTag.grpMemInv.rawValue
        case .grpMemFwd: KnownEventTag.grpMemFwd.rawValue
        case .grpMemInfo: KnownEventTag.grpMemInfo.rawValue
        case .grpMemCon: KnownEventTag.grpMemCon.rawValue
        case .grpMemRole: KnownEventTag.grpMemRole.rawValue
        case .grpMemRestrict: KnownEventTag.grpMemRestrict.rawValue
        case .grpMemDel: KnownEventTag.grpMemDel.rawValue
        case .grpLeave: KnownEventTag.grpLeave.rawValue
        case .grpDel: KnownEventTag.grpDel.rawValue
        case .grpInfo: KnownEventTag.grpInfo.rawValue
        case .grpPrefs: KnownEventTag.grpPrefs.rawValue
        case .grpMsgForward: KnownEventTag.grpMsgForward.rawValue
        case .grpDirectInv: KnownEventTag.grpDirectInv.rawValue
        case .infoProbe: KnownEventTag.infoProbe.rawValue
        case .infoProbeCheck: KnownEventTag.infoProbeCheck.rawValue
        case .infoProbeOk: KnownEventTag.infoProbeOk.rawValue
        case .unknown(let event, _): event
        }
    }

    /// Events a host forwards to members not yet connected to their author (Protocol.hs
    /// `isForwardedGroupMsg`); a sender leaves them out of its pending messages for such members.
    public var isForwardedGroupMsg: Bool {
        switch self {
        case .msgNew(let c): c.file?.fileInline == nil
        case .msgFileDescr, .msgUpdate, .msgDel, .msgReact, .fileCancel, .info, .grpMemNew, .grpMemRole,
             .grpMemRestrict, .grpMemDel, .grpLeave, .grpDel, .grpInfo, .grpPrefs:
            true
        default: false
        }
    }

    /// Whether simplex-chat accepts `tag` as a JSON chat event: it must start with `x` and have no
    /// space (anything else fails the whole message there, so it does here too).
    public static func isValidTag(_ tag: String) -> Bool {
        tag.utf8.first == UInt8(ascii: "x") && !tag.utf8.contains(UInt8(ascii: " "))
    }
}

/// The event tags with typed params.
enum KnownEventTag: String {
    case msgNew = "x.msg.new"
    case msgFileDescr = "x.msg.file.descr"
    case msgUpdate = "x.msg.update"
    case msgDel = "x.msg.del"
    case msgDeleted = "x.msg.deleted"
    case msgReact = "x.msg.react"
    case fileCancel = "x.file.cancel"
    case info = "x.info"
    case contact = "x.contact"
    case directDel = "x.direct.del"
    case ok = "x.ok"
    case grpInv = "x.grp.inv"
    case grpAcpt = "x.grp.acpt"
    case grpLinkInv = "x.grp.link.inv"
    case grpLinkMem = "x.grp.link.mem"
    case grpLinkReject = "x.grp.link.reject"
    case grpLinkAcpt = "x.grp.link.acpt"
    case grpMemNew = "x.grp.mem.new"
    case grpMemIntro = "x.grp.mem.intro"
    case grpMemInv = "x.grp.mem.inv"
    case grpMemFwd = "x.grp.mem.fwd"
    case grpMemInfo = "x.grp.mem.info"
    case grpMemCon = "x.grp.mem.con"
    case grpMemRole = "x.grp.mem.role"
    case grpMemRestrict = "x.grp.mem.restrict"
    case grpMemDel = "x.grp.mem.del"
    case grpLeave = "x.grp.leave"
    case grpDel = "x.grp.del"
    case grpInfo = "x.grp.info"
    case grpPrefs = "x.grp.prefs"
    case grpMsgForward = "x.grp.msg.forward"
    case grpDirectInv = "x.grp.direct.inv"
    case infoProbe = "x.info.probe"
    case infoProbeCheck = "x.info.probe.check"
    case infoProbeOk = "x.info.probe.ok"
}

// MARK: params coding

extension ChatMsgEvent {
    /// Decodes the `params` member of `envelope` for event `tag` (already validated).
    static func decode(tag: String, from envelope: ProtocolDecodingContainer) throws -> ChatMsgEvent {
        let paramsKey = ChatProtocolKey("params")
        guard let known = KnownEventTag(rawValue: tag) else {
            return .unknown(event: tag, params: try envelope.decode([String: JSONValue].self, forKey: paramsKey))
        }
        // Every known event needs a params object, even those without params (as simplex-chat).
        let p = try envelope.nestedContainer(keyedBy: ChatProtocolKey.self, forKey: paramsKey)
        switch known {
        case .msgNew:
            return .msgNew(try envelope.decode(MsgContainer.self, forKey: paramsKey))
        case .msgFileDescr:
            return try .msgFileDescr(msgId: p.req("msgId"), fileDescr: p.req("fileDescr"))
        case .msgUpdate:
            return try .msgUpdate(
                MsgUpdate(
                    msgId: p.req("msgId"), content: p.req("content"), mentions: p.opt("mentions") ?? [:],
                    ttl: p.opt("ttl"), live: p.opt("live"), scope: p.opt("scope"), asGroup: p.opt("asGroup"),
                    prefs: p.opt("prefs")))
        case .msgDel:
            return try .msgDel(msgId: p.req("msgId"), memberId: p.opt("memberId"), scope: p.opt("scope"))
        case .msgDeleted:
            return .msgDeleted
        case .msgReact:
            return try .msgReact(
                msgId: p.req("msgId"), memberId: p.opt("memberId"), scope: p.opt("scope"),
                reaction: p.req("reaction"), add: p.req("add"))
        case .fileCancel:
            return try .fileCancel(msgId: p.req("msgId"))
        case .info:
            return try .info(p.req("profile"))
        case .contact:
            let reqMsgId: SharedMsgId? = try p.opt("msgId")
            let reqContent: MsgContent? = try p.opt("content")
            let requestMsg = reqMsgId.flatMap { id in reqContent.map { RequestMsg(msgId: id, content: $0) } }
            return try .contact(
                profile: p.req("profile"), contactReqId: p.opt("contactReqId"), welcomeMsgId: p.opt("welcomeMsgId"),
                requestMsg: requestMsg)
        case .directDel:
            return .directDel
        case .ok:
            return .ok
        case .grpInv:
            return try .grpInv(p.req("groupInvitation"))
        case .grpAcpt:
            return try .grpAcpt(memberId: p.req("memberId"))
        case .grpLinkInv:
            return try .grpLinkInv(p.req("groupLinkInvitation"))
        case .grpLinkMem:
            return try .grpLinkMem(profile: p.req("profile"))
        case .grpLinkReject:
            return try .grpLinkReject(p.req("groupLinkRejection"))
        case .grpLinkAcpt:
            return try .grpLinkAcpt(acceptance: p.req("acceptance"), role: p.req("role"), memberId: p.req("memberId"))
        case .grpMemNew:
            return try .grpMemNew(p.req("memberInfo"), scope: p.opt("scope"))
        case .grpMemIntro:
            return try .grpMemIntro(p.req("memberInfo"), restrictions: p.opt("memberRestrictions"))
        case .grpMemInv:
            return try .grpMemInv(memberId: p.req("memberId"), intro: p.req("memberIntro"))
        case .grpMemFwd:
            return try .grpMemFwd(p.req("memberInfo"), intro: p.req("memberIntro"))
        case .grpMemInfo:
            return try .grpMemInfo(memberId: p.req("memberId"), profile: p.req("profile"))
        case .grpMemCon:
            return try .grpMemCon(memberId: p.req("memberId"))
        case .grpMemRole:
            return try .grpMemRole(memberId: p.req("memberId"), role: p.req("role"))
        case .grpMemRestrict:
            return try .grpMemRestrict(memberId: p.req("memberId"), restrictions: p.req("memberRestrictions"))
        case .grpMemDel:
            return try .grpMemDel(memberId: p.req("memberId"), messages: p.opt("messages"))
        case .grpLeave:
            return .grpLeave
        case .grpDel:
            return .grpDel
        case .grpInfo:
            return try .grpInfo(p.req("groupProfile"))
        case .grpPrefs:
            return try .grpPrefs(p.req("groupPreferences"))
        case .grpMsgForward:
            return try .grpMsgForward(memberId: p.opt("memberId"), memberName: p.opt("memberName"), msg: p.req("msg"), msgTs: p.req("msgTs"))
        case .grpDirectInv:
            return try .grpDirectInv(connReq: p.req("connReq"), content: p.opt("content"), scope: p.opt("scope"))
        case .infoProbe:
            return try .infoProbe(p.req("probe"))
        case .infoProbeCheck:
            return try .infoProbeCheck(p.req("probeHash"))
        case .infoProbeOk:
            return try .infoProbeOk(p.req("probe"))
        }
    }

    /// Writes the `params` object.
    func encodeParams(to encoder: any Encoder) throws {
        switch self {
        case .msgNew(let container):
            try container.encode(to: encoder)
        case .unknown(_, let params):
            try JSONValue.object(params).encode(to: encoder)
        default:
            var c = encoder.container(keyedBy: ChatProtocolKey.self)
            try encodeKnownParams(into: &c)
        }
    }

    private func encodeKnownParams(into c: inout ProtocolEncodingContainer) throws {
        switch self {
        case .msgNew, .unknown, .msgDeleted, .directDel, .ok, .grpLeave, .grpDel:
            break
        case .grpInv(let inv):
            try c.set(inv, "groupInvitation")
        case .grpAcpt(let memberId), .grpMemCon(let memberId):
            try c.set(memberId, "memberId")
        case .grpLinkInv(let inv):
            try c.set(inv, "groupLinkInvitation")
        case .grpLinkMem(let profile):
            try c.set(profile, "profile")
        case .grpLinkReject(let rejection):
            try c.set(rejection, "groupLinkRejection")
        case .grpLinkAcpt(let acceptance, let role, let memberId):
            try c.set(acceptance, "acceptance")
            try c.set(role, "role")
            try c.set(memberId, "memberId")
        case .grpMemNew(let info, let scope):
            try c.set(info, "memberInfo")
            try c.set(scope, "scope")
        case .grpMemIntro(let info, let restrictions):
            try c.set(info, "memberInfo")
            try c.set(restrictions, "memberRestrictions")
        case .grpMemInv(let memberId, let intro):
            try c.set(memberId, "memberId")
            try c.set(intro, "memberIntro")
        case .grpMemFwd(let info, let intro):
            try c.set(info, "memberInfo")
            try c.set(intro, "memberIntro")
        case .grpMemInfo(let memberId, let profile):
            try c.set(memberId, "memberId")
            try c.set(profile, "profile")
        case .grpMemRole(let memberId, let role):
            try c.set(memberId, "memberId")
            try c.set(role, "role")
        case .grpMemRestrict(let memberId, let restrictions):
            try c.set(memberId, "memberId")
            try c.set(restrictions, "memberRestrictions")
        case .grpMemDel(let memberId, let messages):
            try c.set(memberId, "memberId")
            try c.set(messages, "messages")
        case .grpInfo(let profile):
            try c.set(profile, "groupProfile")
        case .grpPrefs(let prefs):
            try c.set(prefs, "groupPreferences")
        case .grpMsgForward(let memberId, let memberName, let msg, let msgTs):
            try c.set(memberId, "memberId")
            try c.set(memberName, "memberName")
            try c.set(msg, "msg")
            try c.set(msgTs, "msgTs")
        case .msgFileDescr(let msgId, let fileDescr):
            try c.set(msgId, "msgId")
            try c.set(fileDescr, "fileDescr")
        case .msgUpdate(let u):
            try c.set(u.msgId, "msgId")
            try c.set(u.content, "content")
            if !u.mentions.isEmpty { try c.set(u.mentions, "mentions") }
            try c.set(u.ttl, "ttl")
            try c.set(u.live, "live")
            try c.set(u.scope, "scope")
            try c.set(u.asGroup, "asGroup")
            try c.set(u.prefs, "prefs")
        case .msgDel(let msgId, let memberId, let scope):
            try c.set(msgId, "msgId")
            try c.set(memberId, "memberId")
            try c.set(scope, "scope")
        case .msgReact(let msgId, let memberId, let scope, let reaction, let add):
            try c.set(msgId, "msgId")
            try c.set(memberId, "memberId")
            try c.set(scope, "scope")
            try c.set(reaction, "reaction")
            try c.set(add, "add")
        case .fileCancel(let msgId):
            try c.set(msgId, "msgId")
        case .grpDirectInv(let connReq, let content, let scope):
            try c.set(connReq, "connReq")
            try c.set(content, "content")
            try c.set(scope, "scope")
        case .infoProbe(let probe), .infoProbeOk(let probe):
            try c.set(probe, "probe")
        case .infoProbeCheck(let hash):
            try c.set(hash, "probeHash")
        case .info(let profile):
            try c.set(profile, "profile")
        case .contact(let profile, let contactReqId, let welcomeMsgId, let requestMsg):
            try c.set(profile, "profile")
            try c.set(contactReqId, "contactReqId")
            try c.set(welcomeMsgId, "welcomeMsgId")
            try c.set(requestMsg?.msgId, "msgId")
            try c.set(requestMsg?.content, "content")
        }
    }
}
