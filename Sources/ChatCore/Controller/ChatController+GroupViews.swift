import Foundation
import GRDB

/// Building GroupInfo and GroupMember from the chat database (the user's own membership is a
/// member row of category `user`; its profile is the user's unless the group is incognito).
extension ChatController {
    nonisolated func groupMember(_ db: Database, _ groupMemberId: Int64) throws -> GroupMember? {
        guard let r = try db.memberRow(groupMemberId: groupMemberId) else {
            return nil
        }
        return try groupMember(db, row: r)
    }

    nonisolated func groupMember(_ db: Database, groupId: Int64, memberId: String) throws -> GroupMember? {
        guard let r = try db.memberRow(groupId: groupId, memberId: memberId) else { return nil }
        return try groupMember(db, row: r)
    }

    nonisolated func groupMember(_ db: Database, row r: Row) throws -> GroupMember {
        let gmId: Int64 = r["group_member_id"]
        let profile: LocalProfile
        if r["member_profile_id"] as Int64? != nil {
            profile = Self.profile(r)
        } else {
            // Our membership without an incognito profile: the user's own profile.
            let u = try db.userRow(r["user_id"])
            profile = u.map { LocalProfile(profileId: $0["profile_id"], profile: Self.publicProfile($0), localAlias: "") }
                ?? LocalProfile(profileId: 0, profile: Profile(displayName: ""))
        }
        let conn = try db.latestMemberConnectionRow(groupMemberId: gmId)
        let invitedBy: InvitedBy
        if r["invited_by_user"] as Bool {
            invitedBy = .user
        } else if let c = r["invited_by_contact_id"] as Int64? {
            invitedBy = .contact(byContactId: c)
        } else {
            invitedBy = .unknown
        }
        var member = GroupMember(
            groupMemberId: gmId, groupId: r["group_id"], memberId: r["member_id"],
            memberRole: GroupMemberRole(rawValue: r["member_role"]) ?? .member,
            memberCategory: GroupMemberCategory(rawValue: r["member_category"]) ?? .pre,
            memberStatus: GroupMemberStatus(rawValue: r["member_status"]) ?? .unknown,
            memberSettings: GroupMemberSettings(showMessages: r["show_messages"]), blockedByAdmin: r["blocked_by_admin"],
            invitedBy: invitedBy, invitedByGroupMemberId: r["invited_by_group_member_id"], localDisplayName: r["local_display_name"],
            memberProfile: profile, memberContactId: r["contact_id"], memberContactProfileId: profile.profileId,
            activeConn: conn.map(connection), memberChatVRange: chatVRange,
            createdAt: Self.ts(r["created_at"]), updatedAt: Self.ts(r["updated_at"]))
        member.supportChat = Self.supportChat(r)
        return member
    }

    /// A member's support chat counters, once the chat has items (GroupSupportChat).
    nonisolated static func supportChat(_ r: Row) -> GroupSupportChat? {
        guard let ts = r["support_chat_ts"] as Double? else { return nil }
        return GroupSupportChat(chatTs: Self.ts(ts), unread: r["support_chat_items_unread"] ?? 0,
                                memberAttention: r["support_chat_items_member_attention"] ?? 0,
                                mentions: r["support_chat_items_mentions"] ?? 0,
                                lastMsgFromMemberTs: (r["support_chat_last_msg_from_member_ts"] as Double?).map(Self.ts))
    }

    static let currentStatuses = "('introduced','intro-inv','accepted','announced','connected','complete','creator')"

    nonisolated func groupInfo(_ db: Database, _ groupId: Int64) throws -> GroupInfo? {
        guard let g = try db.groupRow(groupId), let mr = try db.membershipRow(groupId: groupId)
        else { return nil }
        let membership = try groupMember(db, row: mr)
        let profile = (try? ChatJSON.decode(GroupProfile.self, from: g["group_profile"] as String)) ?? GroupProfile(displayName: g["local_display_name"])
        let current = try db.memberCount(groupId: groupId, currentStatuses: Self.currentStatuses)
        let chatTs: Double? = g["chat_ts"]
        var info = GroupInfo(
            groupId: groupId, localDisplayName: g["local_display_name"], groupProfile: profile, localAlias: g["local_alias"],
            fullGroupPreferences: .merged(profile.groupPreferences), membership: membership,
            createdAt: Self.ts(g["created_at"]), updatedAt: Self.ts(g["updated_at"]), chatTs: chatTs.map(Self.ts),
            groupSummary: GroupSummary(currentMembers: current), viaGroupLinkUri: g["via_group_link_uri"])
        if let type = (g["business_chat"] as String?).flatMap(BusinessChatType.init(rawValue:)),
           let businessId = g["business_member_id"] as String?, let customerId = g["customer_member_id"] as String? {
            info.businessChat = BusinessChatInfo(chatType: type, businessId: businessId, customerId: customerId)
        }
        info.customData = (g["custom_data"] as String?).flatMap { try? ChatJSON.decode([String: JSONValue].self, from: $0) }
        info.membersRequireAttention = try db.membersRequireAttention(groupId: groupId)
        if let full = g["prepared_conn_link"] as String? {
            let started: Bool = g["prepared_started"]
            info.preparedGroup = PreparedGroup(connLinkToConnect: CreatedConnLink(connFullLink: full, connShortLink: g["prepared_short_link"]),
                                               connLinkPreparedConnection: false, connLinkStartedConnection: started)
        }
        return info
    }

    /// The group's other members (not the user), in the order they were added.
    nonisolated func groupMembers(_ db: Database, _ groupId: Int64) throws -> [GroupMember] {
        try db.otherMemberRows(groupId: groupId).map { try groupMember(db, row: $0) }
    }

    /// The group's link, when it has one.
    static func groupLink(_ r: Row) -> GroupLink {
        GroupLink(userContactLinkId: r["group_link_row_id"], connLinkContact: CreatedConnLink(connFullLink: r["conn_link"], connShortLink: r["short_link"]),
                  groupLinkId: r["group_link_id"], acceptMemberRole: GroupMemberRole(rawValue: r["member_role"]) ?? .member)
    }

    /// A group name not yet used by this user ("team", "team_1", ...).
    func uniqueGroupName(_ db: Database, userId: Int64, _ name: String) throws -> String {
        var candidate = name.isEmpty ? "group" : name
        var n = 0
        while try db.groupNameUsed(userId: userId, candidate) {
            n += 1
            candidate = "\(name)_\(n)"
        }
        return candidate
    }
}
