import Foundation
import GRDB
import SMPAgent

/// Queue rotation in the chat (simplex-chat Commands.hs `APISwitchContact`, `APIAbortSwitchContact`
/// and the member forms; Subscriber.hs SWITCH): the commands drive the agent, its SWITCH events
/// become `contactSwitch` / `groupMemberSwitch` events, and the start and end of each direction
/// become connection-event chat items.
extension ChatController {
    /// `/_switch @<contactId>` and `/_abort switch @<contactId>`.
    func switchContact(contactId: Int64, abort: Bool) async throws(ChatError) -> ChatResponse {
        let found = try store.read { db -> (Int64, Contact)? in
            guard let uid = try db.contactUserId(contactId), let c = try self.contact(db, contactId) else { return nil }
            return (uid, c)
        }
        guard let (userId, contact) = found else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        guard let conn = contact.activeConn else { throw .error(errorType: .contactNotActive(contact: contact)) }
        let stats = try await agentSwitch(conn.agentConnId, abort: abort)
        let user = try userById(userId)
        return abort ? .contactSwitchAborted(user: user, contact: contact, connectionStats: stats)
            : .contactSwitchStarted(user: user, contact: contact, connectionStats: stats)
    }

    /// `/_switch #<groupId> <groupMemberId>` and `/_abort switch #<groupId> <groupMemberId>`.
    func switchMember(groupId: Int64, groupMemberId: Int64, abort: Bool) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let m = try member(groupMemberId)
        guard m.groupId == groupId, let conn = m.activeConn else { throw .error(errorType: .groupMemberNotActive) }
        let stats = try await agentSwitch(conn.agentConnId, abort: abort)
        return abort ? .groupMemberSwitchAborted(user: user, groupInfo: g, member: m, connectionStats: stats)
            : .groupMemberSwitchStarted(user: user, groupInfo: g, member: m, connectionStats: stats)
    }

    private func agentSwitch(_ agentConnId: String, abort: Bool) async throws(ChatError) -> ConnectionStats {
        let agent = try runningAgent()
        do {
            let s = abort ? try await agent.abortConnectionSwitch(connId: agentConnId) : try await agent.switchConnection(connId: agentConnId)
            return apiStats(s)
        } catch {
            throw Self.agentError(error, connId: agentConnId)
        }
    }

    /// A SWITCH event of the agent.
    func queueSwitchChanged(_ agentConnId: String, _ dir: QueueDirection, _ phase: SMPAgent.Phase,
                            _ stats: SMPAgent.Stats) throws(ChatError) {
        guard let conn = try store.read({ db in try db.connectionRow(agentConnId: agentConnId) }) else { return }
        let apiPhase = SwitchPhase(rawValue: phase.rawValue) ?? .started
        let progress = SwitchProgress(queueDirection: dir.rawValue, switchPhase: apiPhase, connectionStats: apiStats(stats))
        let user = try userById(conn["user_id"])
        let itemWorthy = phase == .started || phase == .completed
        if let contactId = conn["contact_id"] as Int64? {
            guard let contact = try store.read({ db in try self.contact(db, contactId) }) else { return }
            emit(.contactSwitch(user: user, contact: contact, switchProgress: progress))
            guard itemWorthy else { return }
            let itemId: Int64
            switch dir {
            case .rcv:
                itemId = try insertItem(userId: user.userId, contactId: contactId, sent: true,
                                        content: .sndConnEvent(sndConnEvent: .switchQueue(phase: apiPhase, member: nil)),
                                        text: Self.sndSwitchText(apiPhase, member: nil), status: .sndNew)
            case .snd:
                itemId = try insertItem(userId: user.userId, contactId: contactId, sent: false,
                                        content: .rcvConnEvent(rcvConnEvent: .switchQueue(phase: apiPhase)),
                                        text: Self.rcvSwitchText(apiPhase), status: .rcvNew)
            }
            emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)]))
        } else if let gmId = conn["group_member_id"] as Int64? {
            let m = try member(gmId)
            let g = try groupInfo(m.groupId)
            emit(.groupMemberSwitch(user: user, groupInfo: g, member: m, switchProgress: progress))
            guard itemWorthy else { return }
            let itemId: Int64
            switch dir {
            case .rcv:
                let ref = GroupMemberRef(groupMemberId: m.groupMemberId, profile: Self.profile(m.memberProfile))
                itemId = try insertItem(userId: user.userId, groupId: m.groupId, sent: true,
                                        content: .sndConnEvent(sndConnEvent: .switchQueue(phase: apiPhase, member: ref)),
                                        text: Self.sndSwitchText(apiPhase, member: ref.profile.displayName), status: .sndNew)
            case .snd:
                itemId = try insertItem(userId: user.userId, groupId: m.groupId, memberGmId: gmId, sent: false,
                                        content: .rcvConnEvent(rcvConnEvent: .switchQueue(phase: apiPhase)),
                                        text: Self.rcvSwitchText(apiPhase), status: .rcvNew)
            }
            emit(.newChatItems(user: user, chatItems: [try groupItem(m.groupId, itemId)]))
        }
    }

    /// simplex-chat `sndConnEventToText` for SCESwitchQueue.
    static func sndSwitchText(_ phase: SwitchPhase, member: String?) -> String {
        let forMember = member.map { " for " + $0 } ?? ""
        return switch phase {
        case .started: "started changing address" + forMember + "..."
        case .confirmed: "confirmed changing address" + forMember + "..."
        case .secured: "secured new address" + forMember + "..."
        case .completed: "you changed address" + forMember
        }
    }

    /// simplex-chat `rcvConnEventToText` for RCESwitchQueue.
    static func rcvSwitchText(_ phase: SwitchPhase) -> String {
        switch phase {
        case .started: "started changing address for you..."
        case .confirmed: "confirmed changing address for you..."
        case .secured: "secured new address for you..."
        case .completed: "changed address for you"
        }
    }
}
