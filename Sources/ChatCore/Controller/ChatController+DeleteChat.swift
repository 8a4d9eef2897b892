import Foundation
import GRDB
import SMPAgent

/// `/_delete <chatRef> full|entity|messages` (COMMANDS.md APIDeleteChat): each mode does what
/// it says, for contacts, groups and pending connections.
extension ChatController {
    func deleteChat(_ ref: ChatRef, _ mode: ChatDeleteMode) async throws(ChatError) -> ChatResponse {
        switch ref.chatType {
        case .direct:
            return try await deleteContactChat(ref.chatId, mode)
        case .group where ref.chatScope == nil:
            if case .messages = mode { return try clearGroupChat(ref.chatId) }
            return try await deleteGroup(groupId: ref.chatId)
        case .contactConnection:
            return try await deletePendingConnection(ref.chatId)
        case .group, .local, .contactRequest:
            throw .error(errorType: .commandError(message: "not supported"))
        }
    }

    /// full: the peer is told (x.direct.del, unless notify=off), the connections and the chat
    /// go. entity: the same, but the chat stays with the contact marked deletedByUser.
    /// messages: only the items go (the chat is hidden until the next message).
    private func deleteContactChat(_ contactId: Int64, _ mode: ChatDeleteMode) async throws(ChatError) -> ChatResponse {
        let found = try store.read { db -> (Int64, Contact, [String])? in
            guard let c = try self.contact(db, contactId), let uid = try db.contactUserId(contactId) else { return nil }
            return (uid, c, try db.contactAgentConnIds(contactId))
        }
        guard let (userId, contact, conns) = found else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        let user = try userById(userId)
        let notify: Bool
        switch mode {
        case .messages:
            let cleared = try store.write { db -> Contact? in
                try db.clearContactChat(contactId, at: Self.now)
                return try self.contact(db, contactId)
            }
            return .contactDeleted(user: user, contact: cleared ?? contact)
        case .full(let n), .entity(let n):
            notify = n
        }
        // As simplex-chat: the peer is told only about a ready, active contact, and only when
        // the chat runs (a stopped chat cannot send; the connections are deleted at start).
        if notify, agent != nil, contact.contactStatus == .active, let active = contact.activeConn, active.connStatus == .ready {
            try? await sendEvent(active.agentConnId, .directDel)
            try await deleteAgentConnections(conns, waitForDelivery: 3)
        } else {
            try await deleteAgentConnections(conns)
        }
        if case .entity = mode {
            let kept = try store.write { db -> Contact? in
                try db.markContactDeletedByUser(contactId, at: Self.now)
                return try self.contact(db, contactId)
            }
            return .contactDeleted(user: user, contact: kept ?? contact)
        }
        try store.write { db in try db.deleteContact(contactId) }
        return .contactDeleted(user: user, contact: contact)
    }

    /// `/_delete #id messages`: the group's items are deleted; the group and its members stay.
    private func clearGroupChat(_ groupId: Int64) throws(ChatError) -> ChatResponse {
        let (user, _) = try groupContext(groupId)
        try store.write { db in try db.clearGroupChat(groupId) }
        return .chatCleared(user: user, chatInfo: .group(groupInfo: try groupInfo(groupId), groupChatScope: nil))
    }

    /// `/_delete :id`: an invitation we created or a link we joined, before it made a contact.
    private func deletePendingConnection(_ connId: Int64) async throws(ChatError) -> ChatResponse {
        guard let row = try store.read({ db in try db.pendingConnectionRow(connId) }) else {
            throw .errorStore(storeError: .pendingConnectionNotFound(connId: connId))
        }
        let user = try userById(row["user_id"])
        try await deleteAgentConnections([row["agent_conn_id"]])
        try store.write { db in try db.deleteConnection(connId) }
        return .contactConnectionDeleted(user: user, connection: Self.pending(row))
    }
}
