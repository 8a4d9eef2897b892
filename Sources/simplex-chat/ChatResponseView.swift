import ChatCore
import Foundation

/// Readable lines for every answer of the core, so a command typed in its API form (`/_get chats 1`,
/// `/_members #1`, ...) shows what happened instead of JSON. The switch is exhaustive on purpose:
/// a new `ChatResponse` case does not compile until it has a view.
extension ChatView {
    static func describe(response r: ChatResponse) -> String {
        switch r {
        case .activeUser(let u):
            return "user profile: \(u.localDisplayName)"
        case .usersList(let users):
            if users.isEmpty { return "no users" }
            return users.map { info in
                let u = info.user
                return u.localDisplayName + (u.activeUser ? " (active)" : "") + (info.unreadCount > 0 ? ", \(info.unreadCount) unread" : "")
            }.joined(separator: "\n")
        case .chatStarted: return "chat started"
        case .chatRunning: return "chat is running"
        case .chatStopped: return "chat stopped"
        case .apiChats(_, let chats):
            if chats.isEmpty { return "no chats" }
            return chats.map { chat in
                let unread = chat.chatStats.unreadCount
                let last = chat.chatItems.last.map { ": " + $0.meta.itemText } ?? ""
                return name(chatInfo: chat.chatInfo) + (unread > 0 ? " (\(unread) unread)" : "") + last
            }.joined(separator: "\n")
        case .apiChat(_, let chat, _):
            let title = name(chatInfo: chat.chatInfo)
            if chat.chatItems.isEmpty { return "\(title): no messages" }
            return chat.chatItems.map { item in "\(title) \(item.meta.itemText)" }.joined(separator: "\n")
        case .userServers(_, let ops):
            let smp = ops.flatMap(\.smpServers).filter { !$0.deleted }
            let xftp = ops.flatMap(\.xftpServers).filter { !$0.deleted }
            func list(_ s: [UserServer]) -> String {
                s.isEmpty ? "  none" : s.map { "  " + $0.server + ($0.enabled ? "" : " (disabled)") }.joined(separator: "\n")
            }
            return "SMP servers:\n\(list(smp))\nXFTP servers:\n\(list(xftp))"
        case .serverTestResult(_, let server, let failure):
            guard let f = failure else { return "\(server): server test passed" }
            return "\(server): server test failed at \(f.testStep), error: \(describe(agentError: f.testError))"
        case .newChatItems(_, let items):
            return items.map { "\(name(chatInfo: $0.chatInfo)) \($0.chatItem.meta.itemText)" }.joined(separator: "\n")
        case .chatItemUpdated(_, let item):
            return "\(name(chatInfo: item.chatInfo)) [edited] \(item.chatItem.meta.itemText)"
        case .chatItemNotChanged(_, let item):
            return "\(name(chatInfo: item.chatInfo)): message not changed"
        case .chatItemReaction(_, let added, let reaction):
            return "\(name(chatInfo: reaction.chatInfo)): reaction \(added ? "added" : "removed")"
        case .chatItemsDeleted(_, let deletions, _, _):
            return deletions.map { "\(name(chatInfo: $0.deletedChatItem.chatInfo)): message deleted" }.joined(separator: "\n")
        case .groupChatItemsDeleted(_, let g, let ids, _, _):
            return "#\(g.localDisplayName): \(ids.count) report(s) archived"
        case .forwardPlan(_, let count, let ids, let confirmation):
            var line = "\(ids.count) of \(count) message(s) can be forwarded"
            if let c = confirmation {
                switch c {
                case .filesNotAccepted(let fileIds): line += "; \(fileIds.count) file(s) not accepted yet"
                case .filesInProgress(let n): line += "; \(n) file(s) still in progress"
                case .filesMissing(let n): line += "; \(n) file(s) missing"
                case .filesFailed(let n): line += "; \(n) file(s) failed"
                }
            }
            return line
        case .cmdOk: return "ok"
        case .networkConfig(let cfg):
            guard case .object(let o) = cfg else { return "network config: \(cfg)" }
            func text(_ k: String) -> String {
                if case .string(let v)? = o[k] { return v }
                return "?"
            }
            return "private message routing: \(text("smpProxyMode")), fallback to direct: \(text("smpProxyFallback"))"
        case .contactsList(_, let contacts):
            if contacts.isEmpty { return "no contacts" }
            return contacts.map { contactLine($0) }.joined(separator: "\n")
        case .userContactLink(_, let link), .userContactLinkUpdated(_, let link):
            return "Your chat address:\n\(show(link.connLinkContact))\n"
                + "auto-accept: \(link.addressSettings.autoAccept == nil ? "off" : "on")"
        case .userContactLinkCreated(_, let link):
            return "Your new chat address is created!\n\(show(link))\nAnyone can connect to you with: /c <address>"
        case .userContactLinkDeleted:
            return "Your chat address is deleted - accepted contacts will remain connected.\nTo create a new chat address use /ad"
        case .contactRequestRejected(_, let req, _):
            return "\(req.localDisplayName): contact request rejected"
        case .acceptingContactRequest(_, let contact):
            return "\(contact.localDisplayName): accepting contact request..."
        case .userProfileUpdated(_, let from, let to, _):
            if from.displayName != to.displayName { return "user profile is changed to \(to.displayName) (your contacts are notified)" }
            return "user profile is updated (your contacts are notified)"
        case .userProfileNoChange:
            return "user profile did not change"
        case .contactPrefsUpdated(_, _, let to):
            return "\(to.localDisplayName): preferences are updated"
        case .contactSwitchStarted(_, let c, _):
            return "\(c.localDisplayName): you started changing address"
        case .groupMemberSwitchStarted(_, let g, let m, _):
            return "#\(g.localDisplayName): you started changing address for \(m.localDisplayName)"
        case .contactSwitchAborted(_, let c, _):
            return "\(c.localDisplayName): you aborted changing address"
        case .groupMemberSwitchAborted(_, let g, let m, _):
            return "#\(g.localDisplayName): you aborted changing address for \(m.localDisplayName)"
        case .contactCode(_, let c, let code):
            return ChatView.securityCode(name: c.localDisplayName, code: code, verify: "/verify @\(c.localDisplayName) <code from your contact>")
        case .groupMemberCode(_, let g, let m, let code):
            return ChatView.securityCode(name: m.localDisplayName, code: code,
                                         verify: "/verify #\(g.localDisplayName) @\(m.localDisplayName) <code from your contact>")
        case .connectionVerified(_, let verified, let code):
            return verified ? "connection verified" : "connection not verified, current code is \(code)"
        case .contactRatchetSyncStarted(_, let c, _):
            return "\(c.localDisplayName): connection synchronization started"
        case .groupMemberRatchetSyncStarted(_, let g, let m, _):
            return "#\(g.localDisplayName) \(m.localDisplayName): connection synchronization started"
        case .contactAliasUpdated(_, let to):
            return to.profile.localAlias.isEmpty ? "\(to.localDisplayName): alias removed" : "\(to.localDisplayName): alias set to \(to.profile.localAlias)"
        case .connectionAliasUpdated(_, let conn):
            return "connection \(conn.pccConnId): alias \(conn.localAlias.isEmpty ? "removed" : "set to \(conn.localAlias)")"
        case .invitation(_, let link, _):
            return "pass this invitation link to your contact (via another channel):\n\(show(link))\n"
                + "and ask them to connect: /c <invitation_link_above>"
        case .connectionIncognitoUpdated(_, let conn, let profile):
            return "connection \(conn.pccConnId): " + (profile.map { "incognito profile \($0.displayName)" } ?? "incognito off")
        case .connectionPlan(_, _, let plan):
            return describe(plan: plan)
        case .sentConfirmation: return "confirmation sent!"
        case .sentInvitation: return "connection request sent!"
        case .contactAlreadyExists(_, let contact):
            return "\(contact.localDisplayName): contact already exists"
        case .newPreparedChat(_, let chat):
            return "\(name(chatInfo: chat.chatInfo)): prepared, connect to send the first message"
        case .startedConnectionToContact(_, let contact, _):
            return "\(contact.localDisplayName): connection started"
        case .contactDeleted(_, let contact):
            return "\(contact.localDisplayName): contact is deleted"
        case .contactConnectionDeleted(_, let conn):
            return "connection :\(conn.pccConnId) deleted"
        case .chatCleared(_, let info):
            return "\(name(chatInfo: info)): all messages are removed locally ONLY"
        case .chatCmdError(let e):
            return describe(error: e)
        case .groupCreated(_, let g):
            return "group #\(g.localDisplayName) is created\nto add members use /a \(g.localDisplayName) <name> or /create link #\(g.localDisplayName)"
        case .sentGroupInvitation(_, let g, let contact, _):
            return "invitation to join the group #\(g.localDisplayName) sent to \(contact.localDisplayName)"
        case .userAcceptedGroupSent(_, let g, _):
            return "#\(g.localDisplayName): joining the group..."
        case .newMemberContact(_, _, let g, let m):
            return "contact for member #\(g.localDisplayName) \(m.localDisplayName) is created"
        case .newMemberContactSentInv(_, _, let g, let m):
            return "sent invitation to connect directly to member #\(g.localDisplayName) \(m.localDisplayName)"
        case .memberContactAccepted(_, let ct):
            return "\(ct.localDisplayName): accepting contact invitation..."
        case .groupMembers(_, let group):
            return group.members.map { m in
                "\(m.localDisplayName): \(m.memberRole.rawValue), \(m.memberStatus.rawValue)"
            }.joined(separator: "\n")
        case .groupsList(_, let groups):
            if groups.isEmpty { return "you have no groups!\nto create: /g <name>" }
            return groups.map { "#\($0.localDisplayName)" + ChatTerminalNotes.membership($0.membership.memberStatus) }.joined(separator: "\n")
        case .membersRoleUser(_, let g, let members, let role, _):
            return "#\(g.localDisplayName): you changed the role of \(names(members)) to \(role.rawValue)"
        case .membersBlockedForAllUser(_, let g, let members, let blocked, _):
            return "#\(g.localDisplayName): you \(blocked ? "blocked" : "unblocked") \(names(members))"
        case .userDeletedMembers(_, let g, let members, _, _):
            return "#\(g.localDisplayName): you removed \(names(members)) from the group"
        case .memberAccepted(_, let g, let m):
            return "#\(g.localDisplayName): \(m.localDisplayName) accepted"
        case .memberSupportChatRead(_, let g, let m):
            return "#\(g.localDisplayName): \(m.localDisplayName) support chat read"
        case .memberSupportChatDeleted(_, let g, let m):
            return "#\(g.localDisplayName): \(m.localDisplayName) support chat deleted"
        case .itemsReadForChat:
            return "items read for chat"
        case .leftMemberUser(_, let g):
            return "#\(g.localDisplayName): you left the group\nuse /d #\(g.localDisplayName) to delete the group"
        case .groupDeletedUser(_, let g, _, _):
            return "#\(g.localDisplayName): you deleted the group"
        case .groupUpdated(_, let from, let to, _, _):
            return "#\(from.localDisplayName): group profile updated, now #\(to.groupProfile.displayName)"
        case .groupLinkCreated(_, let g, let link), .groupLink(_, let g, let link):
            return "Group link for #\(g.localDisplayName):\n\(show(link.connLinkContact))\n"
                + "Anyone can join the group with: /c <group_link_above>"
        case .groupLinkDeleted(_, let g):
            return "#\(g.localDisplayName): group link is deleted"
        case .startedConnectionToGroup(_, let g, _):
            return "#\(g.localDisplayName): connection started"
        case .file(let f):
            return describe(file: f)
        case .unknown(let json):
            return "answer of a newer version: \(compact(json))"
        }
    }

    static func describe(plan: ConnectionPlan) -> String {
        switch plan {
        case .invitationLink(let p):
            switch p {
            case .ok: return "invitation link: ok to connect"
            case .ownLink: return "invitation link: own link"
            case .connecting(let c): return "invitation link: connecting" + (c.map { " to \($0.localDisplayName)" } ?? "")
            case .known(let c): return "invitation link: known contact \(c.localDisplayName)"
            }
        case .contactAddress, .groupLink, .unknown:
            return "connection plan: \(compact(plan))"
        case .error(let e):
            return "connection plan: \(describe(error: e))"
        }
    }

    static func show(_ link: CreatedConnLink) -> String { link.connShortLink ?? link.connFullLink }

    static func names(_ members: [GroupMember]) -> String {
        members.map(\.localDisplayName).joined(separator: ", ")
    }

    static func contactLine(_ c: Contact) -> String {
        let full = c.profile.fullName
        return c.localDisplayName + (full.isEmpty || full == c.localDisplayName ? "" : " (\(full))")
    }

    static func name(chatInfo: ChatInfo) -> String {
        switch chatInfo {
        case .direct(let c): "@\(c.localDisplayName)"
        case .group(let g, _): "#\(g.localDisplayName)"
        case .local: "*notes"
        case .contactRequest(let r): "<@\(r.localDisplayName)"
        case .contactConnection(let c): ":\(c.pccConnId)"
        case .unknown: "?"
        }
    }
}

/// Short notes on the user's own membership, shared by the group list views.
enum ChatTerminalNotes {
    static func membership(_ status: GroupMemberStatus) -> String {
        switch status {
        case .invited: " (pending invitation: /j to join)"
        case .left: " (you left)"
        case .removed: " (you are removed)"
        default: ""
        }
    }
}

extension ChatView {
    /// simplex-chat `viewSecurityCode`: the code, and how the contact verifies it on their side.
    static func securityCode(name: String, code: String, verify: String) -> String {
        "\(name) security code:\n\(code)\npass this code to your contact and ask them to compare it with theirs, or to run:\n\(verify)"
    }
}
