/// What a chat item is: a message sent or received, or one of the many chat events
/// (TYPES.md CIContent). A kind this version does not know decodes as `unknown` and is
/// re-encoded unchanged, so one new item type never breaks a whole chat page.
public enum CIContent: Sendable, Hashable, Codable {
    case sndMsgContent(msgContent: MsgContent)
    case rcvMsgContent(msgContent: MsgContent)
    case sndDeleted(deleteMode: CIDeleteMode)
    case rcvDeleted(deleteMode: CIDeleteMode)
    case sndCall(status: CICallStatus, duration: Int)
    case rcvCall(status: CICallStatus, duration: Int)
    case rcvIntegrityError(msgError: ChatMsgErrorType)
    case rcvDecryptionError(msgDecryptError: MsgDecryptError, msgCount: UInt32)
    case rcvGroupInvitation(groupInvitation: CIGroupInvitation, memberRole: GroupMemberRole)
    case sndGroupInvitation(groupInvitation: CIGroupInvitation, memberRole: GroupMemberRole)
    case rcvDirectEvent(rcvDirectEvent: RcvDirectEvent)
    case rcvGroupEvent(rcvGroupEvent: RcvGroupEvent)
    case sndGroupEvent(sndGroupEvent: SndGroupEvent)
    case rcvConnEvent(rcvConnEvent: RcvConnEvent)
    case sndConnEvent(sndConnEvent: SndConnEvent)
    case rcvChatFeature(feature: ChatFeature, enabled: PrefEnabled, param: Int?)
    case sndChatFeature(feature: ChatFeature, enabled: PrefEnabled, param: Int?)
    case rcvChatPreference(feature: ChatFeature, allowed: FeatureAllowed, param: Int?)
    case sndChatPreference(feature: ChatFeature, allowed: FeatureAllowed, param: Int?)
    case rcvGroupFeature(groupFeature: GroupFeature, preference: GroupPreference, param: Int?, memberRole_: GroupMemberRole?)
    case sndGroupFeature(groupFeature: GroupFeature, preference: GroupPreference, param: Int?, memberRole_: GroupMemberRole?)
    case rcvChatFeatureRejected(feature: ChatFeature)
    case rcvGroupFeatureRejected(groupFeature: GroupFeature)
    case sndModerated
    case rcvModerated
    case rcvBlocked
    case sndDirectE2EEInfo(e2eeInfo: E2EInfo)
    case rcvDirectE2EEInfo(e2eeInfo: E2EInfo)
    case sndGroupE2EEInfo(e2eeInfo: E2EInfo)
    case rcvGroupE2EEInfo(e2eeInfo: E2EInfo)
    case chatBanner
    /// simplex-chat's form for an item whose stored JSON could not be read, with the item's direction.
    case invalidJSON(direction: MsgDirection, json: String)
    /// A kind this version does not know: its tag and whole object.
    case unknown(type: String, json: JSONValue)

    /// The message content, for message items.
    public var msgContent: MsgContent? {
        switch self {
        case .sndMsgContent(let mc), .rcvMsgContent(let mc): mc
        default: nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        let type = try c.tag()
        switch type {
        case "sndMsgContent": self = try .sndMsgContent(msgContent: c.v("msgContent"))
        case "rcvMsgContent": self = try .rcvMsgContent(msgContent: c.v("msgContent"))
        case "sndDeleted": self = try .sndDeleted(deleteMode: c.v("deleteMode"))
        case "rcvDeleted": self = try .rcvDeleted(deleteMode: c.v("deleteMode"))
        case "sndCall": self = try .sndCall(status: c.v("status"), duration: c.v("duration"))
        case "rcvCall": self = try .rcvCall(status: c.v("status"), duration: c.v("duration"))
        case "rcvIntegrityError": self = try .rcvIntegrityError(msgError: c.v("msgError"))
        case "rcvDecryptionError": self = try .rcvDecryptionError(msgDecryptError: c.v("msgDecryptError"), msgCount: c.v("msgCount"))
        case "rcvGroupInvitation": self = try .rcvGroupInvitation(groupInvitation: c.v("groupInvitation"), memberRole: c.v("memberRole"))
        case "sndGroupInvitation": self = try .sndGroupInvitation(groupInvitation: c.v("groupInvitation"), memberRole: c.v("memberRole"))
        case "rcvDirectEvent": self = try .rcvDirectEvent(rcvDirectEvent: c.v("rcvDirectEvent"))
        case "rcvGroupEvent": self = try .rcvGroupEvent(rcvGroupEvent: c.v("rcvGroupEvent"))
        case "sndGroupEvent": self = try .sndGroupEvent(sndGroupEvent: c.v("sndGroupEvent"))
        case "rcvConnEvent": self = try .rcvConnEvent(rcvConnEvent: c.v("rcvConnEvent"))
        case "sndConnEvent": self = try .sndConnEvent(sndConnEvent: c.v("sndConnEvent"))
        case "rcvChatFeature": self = try .rcvChatFeature(feature: c.v("feature"), enabled: c.v("enabled"), param: c.opt("param"))
        case "sndChatFeature": self = try .sndChatFeature(feature: c.v("feature"), enabled: c.v("enabled"), param: c.opt("param"))
        case "rcvChatPreference": self = try .rcvChatPreference(feature: c.v("feature"), allowed: c.v("allowed"), param: c.opt("param"))
        case "sndChatPreference": self = try .sndChatPreference(feature: c.v("feature"), allowed: c.v("allowed"), param: c.opt("param"))
        case "rcvGroupFeature":
            self = try .rcvGroupFeature(groupFeature: c.v("groupFeature"), preference: c.v("preference"), param: c.opt("param"), memberRole_: c.opt("memberRole_"))
        case "sndGroupFeature":
            self = try .sndGroupFeature(groupFeature: c.v("groupFeature"), preference: c.v("preference"), param: c.opt("param"), memberRole_: c.opt("memberRole_"))
        case "rcvChatFeatureRejected": self = try .rcvChatFeatureRejected(feature: c.v("feature"))
        case "rcvGroupFeatureRejected": self = try .rcvGroupFeatureRejected(groupFeature: c.v("groupFeature"))
        case "sndModerated": self = .sndModerated
        case "rcvModerated": self = .rcvModerated
        case "rcvBlocked": self = .rcvBlocked
        case "sndDirectE2EEInfo": self = try .sndDirectE2EEInfo(e2eeInfo: c.v("e2eeInfo"))
        case "rcvDirectE2EEInfo": self = try .rcvDirectE2EEInfo(e2eeInfo: c.v("e2eeInfo"))
        case "sndGroupE2EEInfo": self = try .sndGroupE2EEInfo(e2eeInfo: c.v("e2eeInfo"))
        case "rcvGroupE2EEInfo": self = try .rcvGroupE2EEInfo(e2eeInfo: c.v("e2eeInfo"))
        case "chatBanner": self = .chatBanner
        case "invalidJSON": self = try .invalidJSON(direction: c.v("direction"), json: c.v("json"))
        default: self = try .unknown(type: type, json: rawJSON(decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(_, let json) = self {
            try json.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .sndMsgContent(let mc):
            try c.tag("sndMsgContent")
            try c.put(mc, "msgContent")
        case .rcvMsgContent(let mc):
            try c.tag("rcvMsgContent")
            try c.put(mc, "msgContent")
        case .sndDeleted(let m):
            try c.tag("sndDeleted")
            try c.put(m, "deleteMode")
        case .rcvDeleted(let m):
            try c.tag("rcvDeleted")
            try c.put(m, "deleteMode")
        case .sndCall(let s, let d):
            try c.tag("sndCall")
            try c.put(s, "status")
            try c.put(d, "duration")
        case .rcvCall(let s, let d):
            try c.tag("rcvCall")
            try c.put(s, "status")
            try c.put(d, "duration")
        case .rcvIntegrityError(let e):
            try c.tag("rcvIntegrityError")
            try c.put(e, "msgError")
        case .rcvDecryptionError(let e, let n):
            try c.tag("rcvDecryptionError")
            try c.put(e, "msgDecryptError")
            try c.put(n, "msgCount")
        case .rcvGroupInvitation(let inv, let role):
            try c.tag("rcvGroupInvitation")
            try c.put(inv, "groupInvitation")
            try c.put(role, "memberRole")
        case .sndGroupInvitation(let inv, let role):
            try c.tag("sndGroupInvitation")
            try c.put(inv, "groupInvitation")
            try c.put(role, "memberRole")
        case .rcvDirectEvent(let e):
            try c.tag("rcvDirectEvent")
            try c.put(e, "rcvDirectEvent")
        case .rcvGroupEvent(let e):
            try c.tag("rcvGroupEvent")
            try c.put(e, "rcvGroupEvent")
        case .sndGroupEvent(let e):
            try c.tag("sndGroupEvent")
            try c.put(e, "sndGroupEvent")
        case .rcvConnEvent(let e):
            try c.tag("rcvConnEvent")
            try c.put(e, "rcvConnEvent")
        case .sndConnEvent(let e):
            try c.tag("sndConnEvent")
            try c.put(e, "sndConnEvent")
        case .rcvChatFeature(let f, let e, let p):
            try c.tag("rcvChatFeature")
            try c.put(f, "feature")
            try c.put(e, "enabled")
            try c.put(p, "param")
        case .sndChatFeature(let f, let e, let p):
            try c.tag("sndChatFeature")
            try c.put(f, "feature")
            try c.put(e, "enabled")
            try c.put(p, "param")
        case .rcvChatPreference(let f, let a, let p):
            try c.tag("rcvChatPreference")
            try c.put(f, "feature")
            try c.put(a, "allowed")
            try c.put(p, "param")
        case .sndChatPreference(let f, let a, let p):
            try c.tag("sndChatPreference")
            try c.put(f, "feature")
            try c.put(a, "allowed")
            try c.put(p, "param")
        case .rcvGroupFeature(let f, let pref, let p, let r):
            try c.tag("rcvGroupFeature")
            try c.put(f, "groupFeature")
            try c.put(pref, "preference")
            try c.put(p, "param")
            try c.put(r, "memberRole_")
        case .sndGroupFeature(let f, let pref, let p, let r):
            try c.tag("sndGroupFeature")
            try c.put(f, "groupFeature")
            try c.put(pref, "preference")
            try c.put(p, "param")
            try c.put(r, "memberRole_")
        case .rcvChatFeatureRejected(let f):
            try c.tag("rcvChatFeatureRejected")
            try c.put(f, "feature")
        case .rcvGroupFeatureRejected(let f):
            try c.tag("rcvGroupFeatureRejected")
            try c.put(f, "groupFeature")
        case .sndModerated: try c.tag("sndModerated")
        case .rcvModerated: try c.tag("rcvModerated")
        case .rcvBlocked: try c.tag("rcvBlocked")
        case .sndDirectE2EEInfo(let i):
            try c.tag("sndDirectE2EEInfo")
            try c.put(i, "e2eeInfo")
        case .rcvDirectE2EEInfo(let i):
            try c.tag("rcvDirectE2EEInfo")
            try c.put(i, "e2eeInfo")
        case .sndGroupE2EEInfo(let i):
            try c.tag("sndGroupE2EEInfo")
            try c.put(i, "e2eeInfo")
        case .rcvGroupE2EEInfo(let i):
            try c.tag("rcvGroupE2EEInfo")
            try c.put(i, "e2eeInfo")
        case .chatBanner: try c.tag("chatBanner")
        case .invalidJSON(let d, let j):
            try c.tag("invalidJSON")
            try c.put(d, "direction")
            try c.put(j, "json")
        case .unknown: break
        }
    }
}

/// TYPES.md CICallStatus.
public enum CICallStatus: String, Codable, Sendable, Hashable {
    case pending, missed, rejected, accepted, negotiated, progress, ended, error
}

/// A gap or fault in the received message sequence (TYPES.md MsgErrorType; renamed so it does
/// not clash with the agent's type).
public enum ChatMsgErrorType: Sendable, Hashable, Codable {
    case msgSkipped(fromMsgId: Int64, toMsgId: Int64)
    case msgBadId(msgId: Int64)
    case msgBadHash
    case msgDuplicate

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "msgSkipped": self = try .msgSkipped(fromMsgId: c.v("fromMsgId"), toMsgId: c.v("toMsgId"))
        case "msgBadId": self = try .msgBadId(msgId: c.v("msgId"))
        case "msgBadHash": self = .msgBadHash
        case "msgDuplicate": self = .msgDuplicate
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown MsgErrorType \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .msgSkipped(let from, let to):
            try c.tag("msgSkipped")
            try c.put(from, "fromMsgId")
            try c.put(to, "toMsgId")
        case .msgBadId(let id):
            try c.tag("msgBadId")
            try c.put(id, "msgId")
        case .msgBadHash: try c.tag("msgBadHash")
        case .msgDuplicate: try c.tag("msgDuplicate")
        }
    }
}

/// TYPES.md MsgDecryptError.
public enum MsgDecryptError: String, Codable, Sendable, Hashable {
    case ratchetHeader, tooManySkipped, ratchetEarlier, other, ratchetSync
}

/// TYPES.md CIGroupInvitationStatus.
public enum CIGroupInvitationStatus: String, Codable, Sendable, Hashable {
    case pending, accepted, rejected, expired
}

/// TYPES.md CIGroupInvitation.
public struct CIGroupInvitation: Codable, Sendable, Hashable {
    public var groupId: Int64
    public var groupMemberId: Int64
    public var localDisplayName: String
    public var groupProfile: GroupProfile
    public var status: CIGroupInvitationStatus
}

/// Whether post-quantum encryption is on for a chat (TYPES.md E2EInfo).
public struct E2EInfo: Codable, Sendable, Hashable {
    public var pqEnabled: Bool?
    public init(pqEnabled: Bool?) { self.pqEnabled = pqEnabled }
}

/// TYPES.md SwitchPhase.
public enum SwitchPhase: String, Codable, Sendable, Hashable {
    case started, confirmed, secured, completed
}

/// TYPES.md RatchetSyncState.
public enum RatchetSyncState: String, Codable, Sendable, Hashable {
    case ok, allowed, required, started, agreed
}

/// TYPES.md RcvDirectEvent.
public enum RcvDirectEvent: Sendable, Hashable, Codable {
    case contactDeleted
    case profileUpdated(fromProfile: Profile, toProfile: Profile)
    case groupInvLinkReceived(groupProfile: GroupProfile)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "contactDeleted": self = .contactDeleted
        case "profileUpdated": self = try .profileUpdated(fromProfile: c.v("fromProfile"), toProfile: c.v("toProfile"))
        case "groupInvLinkReceived": self = try .groupInvLinkReceived(groupProfile: c.v("groupProfile"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown RcvDirectEvent \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .contactDeleted: try c.tag("contactDeleted")
        case .profileUpdated(let from, let to):
            try c.tag("profileUpdated")
            try c.put(from, "fromProfile")
            try c.put(to, "toProfile")
        case .groupInvLinkReceived(let p):
            try c.tag("groupInvLinkReceived")
            try c.put(p, "groupProfile")
        }
    }
}

/// Group events shown as items; cases without fields carry only their tag. The same shape
/// serves RcvGroupEvent and SndGroupEvent of TYPES.md, whose members overlap.
public enum GroupEventFields: Sendable, Hashable {
    case none
    case member(groupMemberId: Int64, profile: Profile)
    case memberRole(groupMemberId: Int64, profile: Profile, role: GroupMemberRole)
    case memberBlocked(groupMemberId: Int64, profile: Profile, blocked: Bool)
    case role(GroupMemberRole)
    case groupProfile(GroupProfile)
    case profiles(fromProfile: Profile, toProfile: Profile)

    static func decode(_ c: JSONDecodingContainer, _ shape: Shape) throws -> GroupEventFields {
        switch shape {
        case .none: .none
        case .member: try .member(groupMemberId: c.v("groupMemberId"), profile: c.v("profile"))
        case .memberRole: try .memberRole(groupMemberId: c.v("groupMemberId"), profile: c.v("profile"), role: c.v("role"))
        case .memberBlocked: try .memberBlocked(groupMemberId: c.v("groupMemberId"), profile: c.v("profile"), blocked: c.v("blocked"))
        case .role: try .role(c.v("role"))
        case .groupProfile: try .groupProfile(c.v("groupProfile"))
        case .profiles: try .profiles(fromProfile: c.v("fromProfile"), toProfile: c.v("toProfile"))
        }
    }

    func encode(_ c: inout JSONEncodingContainer) throws {
        switch self {
        case .none: break
        case .member(let id, let p):
            try c.put(id, "groupMemberId")
            try c.put(p, "profile")
        case .memberRole(let id, let p, let r):
            try c.put(id, "groupMemberId")
            try c.put(p, "profile")
            try c.put(r, "role")
        case .memberBlocked(let id, let p, let b):
            try c.put(id, "groupMemberId")
            try c.put(p, "profile")
            try c.put(b, "blocked")
        case .role(let r): try c.put(r, "role")
        case .groupProfile(let p): try c.put(p, "groupProfile")
        case .profiles(let from, let to):
            try c.put(from, "fromProfile")
            try c.put(to, "toProfile")
        }
    }

    enum Shape { case none, member, memberRole, memberBlocked, role, groupProfile, profiles }
}

/// A group event received (TYPES.md RcvGroupEvent): `type` is the tag, the fields its members.
public struct RcvGroupEvent: Sendable, Hashable, Codable {
    public var type: String
    public var fields: GroupEventFields

    static let shapes: [String: GroupEventFields.Shape] = [
        "memberAdded": .member, "memberConnected": .none, "memberAccepted": .member, "userAccepted": .none,
        "memberLeft": .none, "memberRole": .memberRole, "memberBlocked": .memberBlocked, "userRole": .role,
        "memberDeleted": .member, "userDeleted": .none, "groupDeleted": .none, "groupUpdated": .groupProfile,
        "invitedViaGroupLink": .none, "memberCreatedContact": .none, "memberProfileUpdated": .profiles,
        "newMemberPendingReview": .none,
    ]

    public init(type: String, fields: GroupEventFields = .none) {
        self.type = type
        self.fields = fields
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        type = try c.tag()
        guard let shape = Self.shapes[type] else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown RcvGroupEvent \(type)")
        }
        fields = try GroupEventFields.decode(c, shape)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.tag(type)
        try fields.encode(&c)
    }
}

/// A group event sent by the user (TYPES.md SndGroupEvent).
public struct SndGroupEvent: Sendable, Hashable, Codable {
    public var type: String
    public var fields: GroupEventFields

    static let shapes: [String: GroupEventFields.Shape] = [
        "memberRole": .memberRole, "memberBlocked": .memberBlocked, "userRole": .role, "memberDeleted": .member,
        "userLeft": .none, "groupUpdated": .groupProfile, "memberAccepted": .member, "userPendingReview": .none,
    ]

    public init(type: String, fields: GroupEventFields = .none) {
        self.type = type
        self.fields = fields
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        type = try c.tag()
        guard let shape = Self.shapes[type] else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown SndGroupEvent \(type)")
        }
        fields = try GroupEventFields.decode(c, shape)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.tag(type)
        try fields.encode(&c)
    }
}

/// A connection event received (TYPES.md RcvConnEvent).
public enum RcvConnEvent: Sendable, Hashable, Codable {
    case switchQueue(phase: SwitchPhase)
    case ratchetSync(syncStatus: RatchetSyncState)
    case verificationCodeReset
    case pqEnabled(enabled: Bool)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "switchQueue": self = try .switchQueue(phase: c.v("phase"))
        case "ratchetSync": self = try .ratchetSync(syncStatus: c.v("syncStatus"))
        case "verificationCodeReset": self = .verificationCodeReset
        case "pqEnabled": self = try .pqEnabled(enabled: c.v("enabled"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown RcvConnEvent \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .switchQueue(let p):
            try c.tag("switchQueue")
            try c.put(p, "phase")
        case .ratchetSync(let s):
            try c.tag("ratchetSync")
            try c.put(s, "syncStatus")
        case .verificationCodeReset: try c.tag("verificationCodeReset")
        case .pqEnabled(let e):
            try c.tag("pqEnabled")
            try c.put(e, "enabled")
        }
    }
}

/// A connection event of the user's side (TYPES.md SndConnEvent).
public enum SndConnEvent: Sendable, Hashable, Codable {
    case switchQueue(phase: SwitchPhase, member: GroupMemberRef?)
    case ratchetSync(syncStatus: RatchetSyncState, member: GroupMemberRef?)
    case pqEnabled(enabled: Bool)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "switchQueue": self = try .switchQueue(phase: c.v("phase"), member: c.opt("member"))
        case "ratchetSync": self = try .ratchetSync(syncStatus: c.v("syncStatus"), member: c.opt("member"))
        case "pqEnabled": self = try .pqEnabled(enabled: c.v("enabled"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown SndConnEvent \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .switchQueue(let p, let m):
            try c.tag("switchQueue")
            try c.put(p, "phase")
            try c.put(m, "member")
        case .ratchetSync(let s, let m):
            try c.tag("ratchetSync")
            try c.put(s, "syncStatus")
            try c.put(m, "member")
        case .pqEnabled(let e):
            try c.tag("pqEnabled")
            try c.put(e, "enabled")
        }
    }
}
