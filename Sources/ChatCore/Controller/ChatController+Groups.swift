import Foundation
import GRDB
import SMPAgent
import SimplexFoundation

/// Group commands (COMMANDS.md "Group commands"): creating groups, inviting and joining,
/// members, roles, blocking, removal, leaving, deleting, profiles and group links.
extension ChatController {
    /// The group with its user, or `groupNotFound`.
    func groupContext(_ groupId: Int64) throws(ChatError) -> (User, GroupInfo) {
        let found = try store.read { db -> (Int64, GroupInfo)? in
            guard let uid = try db.groupUserId(groupId),
                let g = try self.groupInfo(db, groupId) else { return nil }
            return (uid, g)
        }
        guard let (userId, g) = found else { throw .errorStore(storeError: .groupNotFound(groupId: groupId)) }
        return (try userById(userId), g)
    }

    func groupInfo(_ groupId: Int64) throws(ChatError) -> GroupInfo {
        guard let g = try store.read({ db in try self.groupInfo(db, groupId) }) else { throw .errorStore(storeError: .groupNotFound(groupId: groupId)) }
        return g
    }

    func member(_ groupMemberId: Int64) throws(ChatError) -> GroupMember {
        guard let m = try store.read({ db in try self.groupMember(db, groupMemberId) }) else {
            throw .errorStore(storeError: .groupMemberNotFound(groupMemberId: groupMemberId))
        }
        return m
    }

    /// The checks simplex-chat makes before a user acts in a group (`assertUserGroupRole`).
    func assertUserRole(_ g: GroupInfo, _ required: GroupMemberRole) throws(ChatError) {
        let m = g.membership
        if m.memberRole < required { throw .error(errorType: .groupUserRole(groupInfo: g, requiredRole: required)) }
        if m.memberStatus == .invited { throw .error(errorType: .groupNotJoined(groupInfo: g)) }
        if m.memberStatus.isRemoved { throw .error(errorType: .groupMemberUserRemoved) }
        if !m.memberStatus.isActive { throw .error(errorType: .groupMemberNotActive) }
    }

    /// What we tell members about ourselves: the group's incognito profile or the user's.
    func membershipProfile(_ g: GroupInfo) -> Profile {
        var p = g.membership.memberProfile.profile
        p.contactLink = nil
        p.preferences = nil
        return p
    }

    /// `/_group <userId>[ incognito=on] <json>`: a new group with the user as its owner.
    func createGroup(userId: Int64, incognito: Bool, _ profile: GroupProfile) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let valid = Self.validDisplayName(profile.displayName)
        guard !valid.isEmpty, valid == profile.displayName else {
            throw .error(errorType: .invalidDisplayName(displayName: profile.displayName, validName: valid))
        }
        let incognitoId = incognito ? try newIncognitoProfile(userId) : nil
        let profileJSON = try json(profile)
        let groupId = try store.write { db -> Int64 in
            let name = try self.uniqueGroupName(db, userId: userId, valid)
            let groupId = try db.insertGroup(userId: userId, localDisplayName: name, profileJSON: profileJSON, at: Self.now)
            _ = try db.insertGroupMember(groupId: groupId, userId: userId, memberId: MemberId.random().base64url, role: "owner", category: "user",
                                         status: "creator", localDisplayName: user.localDisplayName, profileId: incognitoId, invitedByUser: true,
                                         at: Self.now)
            return groupId
        }
        // simplex-chat `APINewGroup`: the banner, our e2e notice and our feature items.
        try createdGroupItems(user: user, groupId: groupId)
        return .groupCreated(user: user, groupInfo: try groupInfo(groupId))
    }

    /// `/_add #<groupId> <contactId> <role>`: a member connection for the contact, offered in
    /// x.grp.inv over our direct connection.
    func addMember(groupId: Int64, contactId: Int64, role: GroupMemberRole) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        try assertUserRole(g, max(.admin, role))
        let (_, contact, directConnId) = try contactConnection(contactId)
        if contact.activeConn?.customUserProfileId != nil { throw .error(errorType: .contactIncognitoCantInvite) }
        if try store.read({ db in try db.isMembershipIncognito(groupId: groupId) }) {
            throw .error(errorType: .groupIncognitoCantInvite)
        }
        if let existing = try store.read({ db in try db.activeMemberRow(groupId: groupId, contactId: contactId) }) {
            // simplex-chat `APIAddMember`: a contact still `invited` gets the same invitation again
            // (with the new role); any other member is a duplicate.
            guard existing["member_status"] as String == GroupMemberStatus.invited.rawValue else {
                throw .error(errorType: .groupDuplicateMember(contactName: contact.localDisplayName))
            }
            let gmId: Int64 = existing["group_member_id"]
            guard let link = existing["inv_conn_req"] as String?, let memberId = MemberId(base64url: existing["member_id"] as String) else {
                throw .error(errorType: .groupCantResendInvitation(groupInfo: g, contactName: contact.localDisplayName))
            }
            if existing["member_role"] as String != role.rawValue {
                try store.write { db in try db.setMemberRole(gmId, role.rawValue, at: Self.now) }
            }
            try await sendGroupInvitation(user: user, g, contact, directConnId: directConnId, memberId: memberId, role: role, link: link, gmId: gmId)
            return .sentGroupInvitation(user: user, groupInfo: try groupInfo(groupId), contact: contact, member: try member(gmId))
        }
        let agent = try runningAgent()
        let (agentConnId, link): (String, ConnectionRequestURI)
        do { (agentConnId, link) = try await agent.createConnection(mode: .invitation, pqSupport: false, userId: user.userId) } catch {
            throw Self.agentError(error)
        }
        let memberId = MemberId.random()
        let gmId = try store.write { db -> Int64 in
            // The link is kept with the member (simplex-chat `conn_req_inv`) to send the invitation again.
            let gmId = try db.insertGroupMember(groupId: groupId, userId: user.userId, memberId: memberId.base64url, role: role.rawValue,
                                                category: "invitee", status: "invited", localDisplayName: contact.localDisplayName,
                                                profileId: contact.profile.profileId, contactId: contactId, invitedByUser: true,
                                                invitationLink: link.uriString, at: Self.now)
            try db.insertMemberConnection(userId: user.userId, agentConnId: agentConnId, groupMemberId: gmId, status: "new", initiated: true, at: Self.now)
            return gmId
        }
        do {
            try await sendGroupInvitation(user: user, g, contact, directConnId: directConnId, memberId: memberId, role: role, link: link.uriString,
                                          gmId: gmId)
        } catch {
            try? store.write { db in try db.deleteGroupMember(gmId) }
            try? await deleteAgentConnections([agentConnId])
            throw error
        }
        return .sentGroupInvitation(user: user, groupInfo: try groupInfo(groupId), contact: contact, member: try member(gmId))
    }

    /// x.grp.inv to the contact and our "invitation" item (simplex-chat `sendGrpInvitation`).
    private func sendGroupInvitation(user: User, _ g: GroupInfo, _ contact: Contact, directConnId: String, memberId: MemberId,
                                     role: GroupMemberRole, link: String, gmId: Int64) async throws(ChatError) {
        guard let from = MemberId(base64url: g.membership.memberId) else { throw .error(errorType: .groupInternal(message: "bad member ID")) }
        let invitation = GroupInvitation(
            fromMember: MemberIdRole(memberId: from, memberRole: g.membership.memberRole),
            invitedMember: MemberIdRole(memberId: memberId, memberRole: role), connRequest: link,
            groupProfile: g.groupProfile, business: g.businessChat, groupSize: Int(g.groupSummary.currentMembers))
        let shared = SharedMsgId.random()
        _ = try await sendToAgent(directConnId, try chatMessage(.grpInv(invitation), msgId: shared))
        let ciInv = CIGroupInvitation(groupId: g.groupId, groupMemberId: gmId, localDisplayName: g.localDisplayName,
                                      groupProfile: g.groupProfile, status: .pending)
        let itemId = try insertItem(userId: user.userId, contactId: contact.contactId, sent: true,
                                    content: .sndGroupInvitation(groupInvitation: ciInv, memberRole: role),
                                    text: "invitation to join group \(g.localDisplayName) as \(role.rawValue)", shared: shared.base64url)
        emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)]))
    }

    /// `/_join #<groupId>`: joins the host's member connection with x.grp.acpt.
    func joinGroup(groupId: Int64) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        guard g.membership.memberStatus == .invited else { throw .errorStore(storeError: .groupAlreadyJoined) }
        guard let host = try store.read({ db in try db.groupHostRow(groupId: groupId) }), let connReq = host["inv_conn_req"] as String?, let ownId = MemberId(base64url: g.membership.memberId) else {
            throw .errorStore(storeError: .groupInvitationNotFound)
        }
        let hostGmId: Int64 = host["group_member_id"]
        var hostContact: Contact?
        if let cid = host["contact_id"] as Int64? {
            hostContact = try store.read { db in try self.contact(db, cid) }
            if let c = hostContact, c.activeConn?.connStatus != .ready { throw .error(errorType: .contactNotActive(contact: c)) }
        }
        let agent = try runningAgent()
        let agentConnId: String
        let connInfo = try encodeInfo(.grpAcpt(memberId: ownId))
        do {
            agentConnId = try await agent.joinConnection(link: connReq, connInfo: connInfo, pqSupport: false,
                                                        userId: user.userId)
        } catch {
            throw Self.agentError(error)
        }
        try store.write { db in
            try db.insertMemberConnection(userId: user.userId, agentConnId: agentConnId, groupMemberId: hostGmId, status: "joined", initiated: true, at: Self.now)
            try db.acceptGroupInvitation(groupId: groupId, at: Self.now)
        }
        if let c = hostContact { try setInvitationStatus(contactId: c.contactId, groupId: groupId, .accepted) }
        return .userAcceptedGroupSent(user: user, groupInfo: try groupInfo(groupId), hostContact: hostContact)
    }

    /// The invitation item in the direct chat follows the invitation (pending → accepted/rejected).
    func setInvitationStatus(contactId: Int64, groupId: Int64, _ status: CIGroupInvitationStatus) throws(ChatError) {
        let rows = try store.read { db in
            try db.groupInvitationItemRows(contactId: contactId)
        }
        for r in rows {
            guard let content = try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String) else { continue }
            let updated: CIContent
            switch content {
            case .rcvGroupInvitation(var inv, let role) where inv.groupId == groupId:
                inv.status = status
                updated = .rcvGroupInvitation(groupInvitation: inv, memberRole: role)
            case .sndGroupInvitation(var inv, let role) where inv.groupId == groupId:
                inv.status = status
                updated = .sndGroupInvitation(groupInvitation: inv, memberRole: role)
            default: continue
            }
            let j = try json(updated)
            try store.write { db in try db.setItemContent(r["chat_item_id"], contentJSON: j, at: Self.now) }
        }
    }

    func listMembers(groupId: Int64) throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let members = try store.read { db in try self.groupMembers(db, groupId) }
        return .groupMembers(user: user, group: Group(groupInfo: g, members: members))
    }

    func listGroups(userId: Int64, contactId: Int64?, search: String?) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let groups = try store.read { db -> [GroupInfo] in
            try db.groupIds(userId: userId, withContact: contactId, search: search).compactMap { try self.groupInfo(db, $0) }
        }
        return .groupsList(user: user, groups: groups)
    }

    /// Members named in a command, all of this group and none of them the user.
    func selectedMembers(_ g: GroupInfo, _ ids: [Int64]) throws(ChatError) -> [GroupMember] {
        var out: [GroupMember] = []
        for id in ids {
            guard let m = try store.read({ db in try self.groupMember(db, id) }), m.groupId == g.groupId else {
                throw .error(errorType: .groupMemberNotFound)
            }
            if m.memberCategory == .user { throw .error(errorType: .commandError(message: "can't change role for self")) }
            out.append(m)
        }
        return out
    }

    /// `/_member role #<groupId> <ids> <role>`: x.grp.mem.role to all current members.
    func changeMembersRole(groupId: Int64, _ ids: [Int64], _ role: GroupMemberRole) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let selected = try selectedMembers(g, ids)
        if selected.count > 1, role >= .admin || selected.contains(where: { $0.memberRole >= .admin }) {
            throw .error(errorType: .commandError(message: "can't change role of multiple members when admins selected, or new role is admin"))
        }
        try assertUserRole(g, max(.admin, max(role, selected.map(\.memberRole).max() ?? .observer)))
        if selected.contains(where: { $0.memberStatus == .invited }) {
            throw .error(errorType: .commandError(message: "can't change role of invited members"))
        }
        var items: [AChatItem] = []
        for m in selected where m.memberRole != role {
            guard let mid = MemberId(base64url: m.memberId) else { continue }
            await sendGroupEvent(groupId, .grpMemRole(memberId: mid, role: role))
            try store.write { db in try db.setMemberRole(m.groupMemberId, role.rawValue, at: Self.now) }
            let itemId = try insertItem(userId: user.userId, groupId: groupId, sent: true,
                                        content: .sndGroupEvent(sndGroupEvent: SndGroupEvent(type: "memberRole", fields: .memberRole(groupMemberId: m.groupMemberId, profile: m.memberProfile.profile, role: role))),
                                        text: "changed role of \(m.localDisplayName) to \(role.rawValue)")
            items.append(try groupItem(groupId, itemId))
        }
        if !items.isEmpty { emit(.newChatItems(user: user, chatItems: items)) }
        let updated = try selected.map { m throws(ChatError) in try member(m.groupMemberId) }
        return .membersRoleUser(user: user, groupInfo: try groupInfo(groupId), members: updated, toRole: role)
    }

    /// `/_block #<groupId> <ids> blocked=on|off`: blocked for all by a moderator (x.grp.mem.restrict).
    func blockMembersForAll(groupId: Int64, _ ids: [Int64], blocked: Bool) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let selected = try selectedMembers(g, ids)
        if selected.count > 1, selected.contains(where: { $0.memberRole >= .admin }) {
            throw .error(errorType: .commandError(message: "can't block/unblock multiple members when admins selected"))
        }
        try assertUserRole(g, max(.moderator, selected.map(\.memberRole).max() ?? .observer))
        var items: [AChatItem] = []
        let excluded = Set(selected.map(\.groupMemberId))
        for m in selected where m.blockedByAdmin != blocked {
            guard let mid = MemberId(base64url: m.memberId) else { continue }
            await sendGroupEvent(groupId, .grpMemRestrict(memberId: mid, restrictions: MemberRestrictions(restriction: blocked ? .blocked : .unrestricted)),
                                 excluding: excluded)
            try store.write { db in try db.setMemberBlockedByAdmin(m.groupMemberId, blocked, at: Self.now) }
            let itemId = try insertItem(userId: user.userId, groupId: groupId, sent: true,
                                        content: .sndGroupEvent(sndGroupEvent: SndGroupEvent(type: "memberBlocked", fields: .memberBlocked(groupMemberId: m.groupMemberId, profile: m.memberProfile.profile, blocked: blocked))),
                                        text: (blocked ? "blocked " : "unblocked ") + m.localDisplayName)
            items.append(try groupItem(groupId, itemId))
        }
        if !items.isEmpty { emit(.newChatItems(user: user, chatItems: items)) }
        let updated = try selected.map { m throws(ChatError) in try member(m.groupMemberId) }
        return .membersBlockedForAllUser(user: user, groupInfo: try groupInfo(groupId), members: updated, blocked: blocked)
    }

    /// `/_member settings #<groupId> <id> <json>`: `showMessages: false` hides a member's messages
    /// for us only (nothing is sent).
    func setMemberSettings(groupId: Int64, groupMemberId: Int64, _ settings: GroupMemberSettings) throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let m = try member(groupMemberId)
        guard m.groupId == g.groupId, m.memberCategory != .user else { throw .error(errorType: .groupMemberNotFound) }
        try store.write { db in
            try db.setMemberShowMessages(groupMemberId, settings.showMessages, at: Self.now)
        }
        return .cmdOk(user_: user)
    }

    /// `/_remove #<groupId> <ids>[ messages=on]`: x.grp.mem.del to all current members (the
    /// removed ones included); invitations not yet accepted are simply withdrawn.
    func removeMembers(groupId: Int64, _ ids: [Int64], withMessages: Bool) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let selected = try selectedMembers(g, ids)
        if selected.count > 1, selected.contains(where: { $0.memberRole >= .admin }) {
            throw .error(errorType: .commandError(message: "can't remove multiple members when admins selected"))
        }
        try assertUserRole(g, max(.admin, selected.map(\.memberRole).max() ?? .observer))
        var items: [AChatItem] = []
        for m in selected {
            let conns = try memberConnections(m.groupMemberId)
            if m.memberStatus == .invited {
                try await deleteAgentConnections(conns)
                try store.write { db in try db.deleteGroupMember(m.groupMemberId) }
                continue
            }
            guard let mid = MemberId(base64url: m.memberId) else { continue }
            if m.memberStatus == .pendingApproval || m.memberStatus == .pendingReview {
                // A joiner still held for review is known to no other member: only it is told (chat version 15).
                try? await sendToMember(m.groupMemberId, .grpMemDel(memberId: mid, messages: withMessages ? true : nil))
            } else {
                await sendGroupEvent(groupId, .grpMemDel(memberId: mid, messages: withMessages ? true : nil))
            }
            try await deleteAgentConnections(conns, waitForDelivery: 3)
            try store.write { db in
                try db.closeMember(m.groupMemberId, status: "removed", at: Self.now)
            }
            if withMessages { try moderateMemberItems(groupId: groupId, authorGmId: m.groupMemberId, by: g.membership) }
            let itemId = try insertItem(userId: user.userId, groupId: groupId, sent: true,
                                        content: .sndGroupEvent(sndGroupEvent: SndGroupEvent(type: "memberDeleted", fields: .member(groupMemberId: m.groupMemberId, profile: m.memberProfile.profile))),
                                        text: "removed \(m.localDisplayName)")
            items.append(try groupItem(groupId, itemId))
        }
        if !items.isEmpty { emit(.newChatItems(user: user, chatItems: items)) }
        let updated = try store.read { db in try selected.compactMap { try self.groupMember(db, $0.groupMemberId) } }
        return .userDeletedMembers(user: user, groupInfo: try groupInfo(groupId), members: updated.isEmpty ? selected : updated, withMessages: withMessages)
    }

    func memberConnections(_ groupMemberId: Int64) throws(ChatError) -> [String] {
        try store.read { db in
            try db.memberConnectionIds(groupMemberId: groupMemberId)
        }
    }

    /// Every member connection of a group and its link, closed (leaving, deleting, being removed).
    func closeGroupConnections(_ groupId: Int64, waitForDelivery: Double) async throws(ChatError) {
        let conns = try store.read { db in try db.groupAgentConnIds(groupId: groupId) }
        try await deleteAgentConnections(conns, waitForDelivery: waitForDelivery)
        try store.write { db in try db.deleteGroupConnections(groupId: groupId) }
    }

    /// `/_leave #<groupId>`: x.grp.leave to all, then our member connections are closed.
    func leaveGroup(groupId: Int64) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        if g.membership.memberStatus.isRemoved { throw .error(errorType: .groupMemberUserRemoved) }
        await sendGroupEvent(groupId, .grpLeave)
        let itemId = try insertItem(userId: user.userId, groupId: groupId, sent: true,
                                    content: .sndGroupEvent(sndGroupEvent: SndGroupEvent(type: "userLeft")), text: "left")
        try await closeGroupConnections(groupId, waitForDelivery: 3)
        try store.write { db in
            try db.setMembershipStatus(groupId: groupId, "left", at: Self.now)
        }
        emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, itemId)]))
        return .leftMemberUser(user: user, groupInfo: try groupInfo(groupId))
    }

    /// `/_delete #<groupId>`: an owner deletes the group for everyone (x.grp.del); a member who
    /// is no longer in the group deletes its local copy.
    func deleteGroup(groupId: Int64) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let current = g.membership.memberStatus.isCurrent
        if current && g.membership.memberRole < .owner && g.membership.memberStatus != .invited {
            throw .error(errorType: .groupUserRole(groupInfo: g, requiredRole: .owner))
        }
        let sendDel = g.membership.memberRole == .owner && g.membership.memberStatus.isActive
        if sendDel { await sendGroupEvent(groupId, .grpDel) }
        try await closeGroupConnections(groupId, waitForDelivery: 3)
        if let host = try store.read({ db in try db.groupHostContactId(groupId: groupId) }), g.membership.memberStatus == .invited {
            try setInvitationStatus(contactId: host, groupId: groupId, .rejected)
        }
        try store.write { db in try db.deleteGroupWithItems(groupId) }
        return .groupDeletedUser(user: user, groupInfo: g, localDeletion: !sendDel)
    }

    /// `/_group_profile #<groupId> <json>`: owners only; x.grp.info to all.
    func updateGroupProfile(groupId: Int64, _ profile: GroupProfile) async throws(ChatError) -> ChatResponse {
        let (user, from) = try groupContext(groupId)
        try assertUserRole(from, .owner)
        let valid = Self.validDisplayName(profile.displayName)
        guard !valid.isEmpty, valid == profile.displayName else {
            throw .error(errorType: .invalidDisplayName(displayName: profile.displayName, validName: valid))
        }
        let j = try json(profile)
        try store.write { db in
            let name = profile.displayName == from.groupProfile.displayName
                ? from.localDisplayName : try self.uniqueGroupName(db, userId: user.userId, valid)
            try db.setGroupProfile(groupId, profileJSON: j, localDisplayName: name, at: Self.now)
        }
        // simplex-chat `runUpdateGroupProfile`: a business chat sends only its preferences
        // (x.grp.prefs), as each side names the chat after the other.
        if from.businessChat != nil {
            await sendGroupEvent(groupId, .grpPrefs(profile.groupPreferences ?? Self.defaultBusinessGroupPreferences))
        } else {
            await sendGroupEvent(groupId, .grpInfo(profile))
        }
        if from.groupProfile.displayName != profile.displayName || from.groupProfile.fullName != profile.fullName
            || from.groupProfile.description != profile.description || from.groupProfile.image != profile.image {
            let itemId = try insertItem(userId: user.userId, groupId: groupId, sent: true,
                                        content: .sndGroupEvent(sndGroupEvent: SndGroupEvent(type: "groupUpdated", fields: .groupProfile(profile))),
                                        text: "updated group profile")
            emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, itemId)]))
        }
        return .groupUpdated(user: user, fromGroup: from, toGroup: try groupInfo(groupId), member_: nil)
    }

    // MARK: group links

    /// `/_create link #<groupId>[ <role>]`: a contact address whose `data` carries the group
    /// link ID; requests to it become members, not contacts.
    func createGroupLink(groupId: Int64, role: GroupMemberRole) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        try assertUserRole(g, .admin)
        if role > .member { throw .error(errorType: .groupMemberInitialRole(groupInfo: g, initialRole: role)) }
        if try store.read({ db in try db.groupLinkRow(groupId: groupId) }) != nil {
            throw .errorStore(storeError: .duplicateGroupLink(groupInfo: g))
        }
        let agent = try runningAgent()
        let linkId = Base64URL.encode(SecureRandom.bytes(16), padded: true)
        // The short link's data is the group profile (simplex-chat GroupShortLinkData).
        let data = [UInt8](try json(GroupShortLinkData(groupProfile: g.groupProfile)).utf8)
        let created: CreatedConnectionLink
        do {
            created = try await agent.createConnection(mode: .contact, userLinkData: data, pqSupport: false, userId: user.userId,
                                                       clientData: #"{"groupLinkId":"\#(linkId)"}"#)
        } catch {
            throw Self.agentError(error)
        }
        let row = try store.write { db -> Row? in
            try db.insertGroupLink(groupId: groupId, userId: user.userId, agentConnId: created.connId, connLink: created.link.uriString,
                                   shortLink: created.shortLink?.uriString, groupLinkId: linkId, role: role.rawValue, at: Self.now)
            return try db.groupLinkRow(groupId: groupId)
        }
        guard let row else { throw .error(errorType: .groupInternal(message: "group link not stored")) }
        return .groupLinkCreated(user: user, groupInfo: g, groupLink: Self.groupLink(row))
    }

    func groupLinkRow(_ g: GroupInfo) throws(ChatError) -> Row {
        guard let r = try store.read({ db in try db.groupLinkRow(groupId: g.groupId) }) else {
            throw .errorStore(storeError: .groupLinkNotFound(groupInfo: g))
        }
        return r
    }

    func getGroupLink(groupId: Int64) throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        return .groupLink(user: user, groupInfo: g, groupLink: Self.groupLink(try groupLinkRow(g)))
    }

    func setGroupLinkRole(groupId: Int64, _ role: GroupMemberRole) throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        try assertUserRole(g, .admin)
        if role > .member { throw .error(errorType: .groupMemberInitialRole(groupInfo: g, initialRole: role)) }
        _ = try groupLinkRow(g)
        try store.write { db in try db.setGroupLinkRole(groupId: groupId, role.rawValue) }
        return .groupLink(user: user, groupInfo: g, groupLink: Self.groupLink(try groupLinkRow(g)))
    }

    func deleteGroupLink(groupId: Int64) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        try assertUserRole(g, .admin)
        let r = try groupLinkRow(g)
        try await deleteAgentConnections([r["agent_conn_id"]])
        try store.write { db in try db.deleteGroupLink(groupId: groupId) }
        return .groupLinkDeleted(user: user, groupInfo: g)
    }
}
