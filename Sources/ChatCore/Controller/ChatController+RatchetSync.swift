import Foundation
import GRDB
import SMPAgent

/// Ratchet re-synchronization in the chat (simplex-chat Commands.hs `APISyncContactRatchet`,
/// `APISyncGroupMemberRatchet`; Subscriber.hs RSYNC): the commands start it in the agent, the
/// agent's RSYNC events become `contactRatchetSync` events and connection-event chat items, and
/// decryption errors become (merged) `rcvDecryptionError` items.
extension ChatController {
    /// `/_sync @<contactId>[ force=on]`.
    func syncContactRatchet(contactId: Int64, force: Bool) async throws(ChatError) -> ChatResponse {
        let found = try store.read { db -> (Int64, Contact)? in
            guard let uid = try db.contactUserId(contactId), let c = try self.contact(db, contactId) else { return nil }
            return (uid, c)
        }
        guard let (userId, contact) = found else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        guard let conn = contact.activeConn else { throw .error(errorType: .contactNotActive(contact: contact)) }
        let user = try userById(userId)
        let stats: SMPAgent.Stats
        let agent = try runningAgent()
        do { stats = try await agent.synchronizeRatchet(connId: conn.agentConnId, pqSupport: conn.pqSupport, force: force) } catch {
            throw Self.agentError(error, connId: conn.agentConnId)
        }
        let rss = Self.apiSyncState(stats.ratchetSyncState)
        let sce = SndConnEvent.ratchetSync(syncStatus: rss, member: nil)
        let itemId = try insertItem(userId: userId, contactId: contactId, sent: true, content: .sndConnEvent(sndConnEvent: sce),
                                    text: Self.syncStatusText(rss), status: .sndNew)
        emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)]))
        return .contactRatchetSyncStarted(user: user, contact: contact, connectionStats: apiStats(stats))
    }

    /// `/_sync #<groupId> <groupMemberId>[ force=on]` (simplex-chat passes PQ off for members).
    func syncMemberRatchet(groupId: Int64, groupMemberId: Int64, force: Bool) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let m = try member(groupMemberId)
        guard m.groupId == groupId, let conn = m.activeConn else { throw .error(errorType: .groupMemberNotActive) }
        let stats: SMPAgent.Stats
        let agent = try runningAgent()
        do { stats = try await agent.synchronizeRatchet(connId: conn.agentConnId, pqSupport: false, force: force) } catch {
            throw Self.agentError(error, connId: conn.agentConnId)
        }
        let rss = Self.apiSyncState(stats.ratchetSyncState)
        let ref = GroupMemberRef(groupMemberId: m.groupMemberId, profile: Self.profile(m.memberProfile))
        let sce = SndConnEvent.ratchetSync(syncStatus: rss, member: ref)
        let itemId = try insertItem(userId: user.userId, groupId: groupId, sent: true, content: .sndConnEvent(sndConnEvent: sce),
                                    text: Self.syncStatusText(rss) + " for " + ref.profile.displayName, status: .sndNew)
        emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, itemId)]))
        return .groupMemberRatchetSyncStarted(user: user, groupInfo: g, member: m, connectionStats: apiStats(stats))
    }

    /// An RSYNC event of the agent.
    func ratchetSyncChanged(_ agentConnId: String, _ state: SMPAgent.SyncState, _ err: SMPAgent.CryptoError?,
                            _ stats: SMPAgent.Stats) throws(ChatError) {
        guard let conn = try store.read({ db in try db.connectionRow(agentConnId: agentConnId) }) else { return }
        let rss = Self.apiSyncState(state)
        let progress = RatchetSyncProgress(ratchetSyncStatus: rss, connectionStats: apiStats(stats))
        let user = try userById(conn["user_id"])
        if let contactId = conn["contact_id"] as Int64? {
            guard let contact = try store.read({ db in try self.contact(db, contactId) }) else { return }
            if let err, state == .required || state == .allowed {
                let (mde, n) = Self.msgDecryptError(err)
                let last = try store.read { db in try db.lastChatItemRow(contactId: contactId) }
                if let itemId = try mergeDecryptionError(last, mde, n) {
                    emit(.chatItemUpdated(user: user, chatItem: try aItem(contact, itemId)))
                    return
                }
                emit(.contactRatchetSync(user: user, contact: contact, ratchetSyncProgress: progress))
                let itemId = try insertItem(userId: user.userId, contactId: contactId, sent: false,
                                            content: .rcvDecryptionError(msgDecryptError: mde, msgCount: n),
                                            text: Self.decryptErrorText(mde, n), status: .rcvNew)
                emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)]))
            } else {
                let reset = try resetVerificationOnSync(conn, state)
                let contact = reset ? (try store.read { db in try self.contact(db, contactId) } ?? contact) : contact
                emit(.contactRatchetSync(user: user, contact: contact, ratchetSyncProgress: progress))
                let itemId = try insertItem(userId: user.userId, contactId: contactId, sent: false,
                                            content: .rcvConnEvent(rcvConnEvent: .ratchetSync(syncStatus: rss)), text: Self.syncStatusText(rss),
                                            status: .rcvNew)
                emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)]))
                if reset {
                    emit(.contactVerificationReset(user: user, contact: contact))
                    let resetId = try insertItem(userId: user.userId, contactId: contactId, sent: false,
                                                 content: .rcvConnEvent(rcvConnEvent: .verificationCodeReset), text: Self.verificationResetText,
                                                 status: .rcvNew)
                    emit(.newChatItems(user: user, chatItems: [try aItem(contact, resetId)]))
                }
            }
        } else if let gmId = conn["group_member_id"] as Int64? {
            let m = try member(gmId)
            let g = try groupInfo(m.groupId)
            if let err, state == .required || state == .allowed {
                let (mde, n) = Self.msgDecryptError(err)
                let last = try store.read { db in try db.lastMemberChatItemRow(groupId: m.groupId, memberGmId: gmId) }
                if let itemId = try mergeDecryptionError(last, mde, n) {
                    emit(.chatItemUpdated(user: user, chatItem: try groupItem(m.groupId, itemId)))
                    return
                }
                emit(.groupMemberRatchetSync(user: user, groupInfo: g, member: m, ratchetSyncProgress: progress))
                let itemId = try insertItem(userId: user.userId, groupId: m.groupId, memberGmId: gmId, sent: false,
                                            content: .rcvDecryptionError(msgDecryptError: mde, msgCount: n),
                                            text: Self.decryptErrorText(mde, n), status: .rcvNew)
                emit(.newChatItems(user: user, chatItems: [try groupItem(m.groupId, itemId)]))
            } else {
                let reset = try resetVerificationOnSync(conn, state)
                let m = reset ? try member(gmId) : m
                emit(.groupMemberRatchetSync(user: user, groupInfo: g, member: m, ratchetSyncProgress: progress))
                let itemId = try insertItem(userId: user.userId, groupId: m.groupId, memberGmId: gmId, sent: false,
                                            content: .rcvConnEvent(rcvConnEvent: .ratchetSync(syncStatus: rss)), text: Self.syncStatusText(rss),
                                            status: .rcvNew)
                emit(.newChatItems(user: user, chatItems: [try groupItem(m.groupId, itemId)]))
                if reset {
                    emit(.groupMemberVerificationReset(user: user, groupInfo: g, member: m))
                    let resetId = try insertItem(userId: user.userId, groupId: m.groupId, memberGmId: gmId, sent: false,
                                                 content: .rcvConnEvent(rcvConnEvent: .verificationCodeReset), text: Self.verificationResetText,
                                                 status: .rcvNew)
                    emit(.newChatItems(user: user, chatItems: [try groupItem(m.groupId, resetId)]))
                }
            }
        }
    }

    /// simplex-chat `mdeUpdatedCI`: when the chat's last item is a decryption error of the same
    /// kind, it counts this one too instead of a new item. Returns the updated item's ID.
    private func mergeDecryptionError(_ last: Row?, _ mde: MsgDecryptError, _ n: UInt32) throws(ChatError) -> Int64? {
        guard let last, let stored = last["item_content"] as String?,
            case .rcvDecryptionError(let prev, let count)? = try? ChatJSON.decode(CIContent.self, from: stored), prev == mde
        else { return nil }
        let merged: UInt32 = switch mde {
        case .ratchetHeader, .ratchetEarlier, .other: count + n
        case .tooManySkipped: n  // each error already counts every skipped message
        case .ratchetSync: 0
        }
        let itemId: Int64 = last["chat_item_id"]
        let content = try json(CIContent.rcvDecryptionError(msgDecryptError: mde, msgCount: merged))
        try store.write { db in try db.setItemTextAndContent(itemId, text: Self.decryptErrorText(mde, merged), contentJSON: content, at: Self.now) }
        return itemId
    }

    /// simplex-chat `agentMsgDecryptError`.
    static func msgDecryptError(_ e: SMPAgent.CryptoError) -> (MsgDecryptError, UInt32) {
        switch e {
        case .decryptAES, .decryptCB: (.other, 1)
        case .ratchetHeader: (.ratchetHeader, 1)
        case .ratchetEarlier: (.ratchetEarlier, 1)
        case .ratchetSkipped(let n): (.tooManySkipped, n)
        case .ratchetSync: (.ratchetSync, 0)
        }
    }

    /// simplex-chat `msgDecryptErrorText`.
    static func decryptErrorText(_ e: MsgDecryptError, _ n: UInt32) -> String {
        let counter: String? = n == 1 ? nil : "\(n) messages"
        let withCounter = counter.map { ", " + $0 } ?? ""
        let desc: String? = switch e {
        case .ratchetHeader: "header" + withCounter
        case .tooManySkipped: "too many skipped messages" + withCounter
        case .ratchetEarlier: "earlier message" + withCounter
        case .other: counter
        case .ratchetSync: "synchronization error"
        }
        return "decryption error, possibly due to the device change" + (desc.map { " (" + $0 + ")" } ?? "")
    }

    /// simplex-chat `ratchetSyncStatusToText`.
    static func syncStatusText(_ s: RatchetSyncState) -> String {
        switch s {
        case .ok: "connection synchronized"
        case .allowed: "decryption error (connection may be out of sync), synchronization allowed"
        case .required: "decryption error (connection out of sync), synchronization required"
        case .started: "connection synchronization started"
        case .agreed: "connection synchronization agreed"
        }
    }

    static func apiSyncState(_ s: SMPAgent.SyncState) -> RatchetSyncState {
        RatchetSyncState(rawValue: s.rawValue) ?? .ok
    }

    func apiStats(_ s: SMPAgent.Stats) -> ConnectionStats {
        ConnectionStats(
            connAgentVersion: Int(s.connAgentVersion),
            rcvQueuesInfo: s.rcvQueuesInfo.map { q in
                let sub: SubscriptionStatus = switch q.subStatus { case .active: .active; case .pending: .pending; case .noSub: .noSub }
                return RcvQueueInfo(rcvServer: q.rcvServer, status: q.status, rcvSwitchStatus: q.rcvSwitchStatus?.rawValue,
                                    canAbortSwitch: q.canAbortSwitch, subStatus: sub)
            },
            sndQueuesInfo: s.sndQueuesInfo.map { SndQueueInfo(sndServer: $0.sndServer, status: $0.status, sndSwitchStatus: $0.sndSwitchStatus?.rawValue) },
            ratchetSyncState: Self.apiSyncState(s.ratchetSyncState), ratchetSyncSupported: s.ratchetSyncSupported, subStatus: nil)
    }

    static func profile(_ p: LocalProfile) -> Profile {
        Profile(displayName: p.displayName, fullName: p.fullName, shortDescr: p.shortDescr, image: p.image,
                contactLink: p.contactLink, preferences: p.preferences, peerType: p.peerType)
    }
}
