import ChatCore
import Foundation

/// The event loop of seed 002 §3 (`ChatReceiver` + `processReceivedMsg`): polls the core with
/// `receive(timeout:)` and applies each event to the `ChatModel`. Main-actor isolated like the
/// model, so events are applied in the order the core sent them; waiting happens off the actor.
@MainActor
public final class ChatReceiver {
    public let backend: any ChatBackend
    public let model: ChatModel
    /// Events received and decoded.
    public private(set) var receivedCount = 0
    /// Answers that could not be decoded as a `ChatEvent`: their type and raw JSON.
    public private(set) var invalidEvents: [(type: String, json: Data)] = []
    /// Errors the core reported as events (`chatError`, `chatErrors`).
    public private(set) var errors: [ChatError] = []
    private var task: Task<Void, Never>?

    public init(backend: any ChatBackend, model: ChatModel) {
        self.backend = backend
        self.model = model
    }

    public var isRunning: Bool { task != nil }

    /// Starts the loop (`receiveMsgLoop`); each wait for an event lasts at most `timeout` seconds,
    /// which bounds how long `stop` takes.
    public func start(timeout: Double = 0.2) {
        guard task == nil else { return }
        let backend = backend
        task = Task { [weak self] in
            while !Task.isCancelled {
                guard let text = await backend.receive(timeout: timeout) else { continue }
                guard let self, !Task.isCancelled else { return }
                self.processReceivedMsg(APIResult<ChatEvent>.decode(text))
            }
        }
    }

    /// Stops the loop and waits for it to end.
    public func stop() async {
        guard let task else { return }
        task.cancel()
        self.task = nil
        await task.value
    }

    /// Applies one decoded envelope.
    public func processReceivedMsg(_ result: APIResult<ChatEvent>) {
        switch result {
        case .result(let event):
            receivedCount += 1
            processReceivedMsg(event)
        case .error(let e): errors.append(e)
        case .invalid(let type, let json): invalidEvents.append((type, json))
        }
    }

    /// Updates the model for one event (seed 001 §4-5, seed 003 §3-6, §10). Events of users other
    /// than the current one are ignored, as the iOS app does for inactive users.
    public func processReceivedMsg(_ event: ChatEvent) {
        let m = model
        func active(_ user: User) -> Bool { m.currentUser.map { $0.userId == user.userId } ?? true }
        switch event {
        case .contactConnected(let user, let contact, _), .contactConnecting(let user, let contact):
            if active(user) { m.contactConnected(contact) }
        case .contactSndReady(let user, let contact):
            if active(user) { m.updateContact(contact) }
        case .receivedContactRequest(let user, let request, _):
            if active(user) { m.addContactRequest(request) }
        case .acceptingContactRequest(let user, let contact):
            guard active(user) else { return }
            if let reqId = contact.contactRequestId {
                m.replaceContactRequest(reqId, with: contact)
            } else {
                m.updateContact(contact)
            }
        case .contactUpdated(let user, _, let toContact):
            if active(user), m.getContactChat(toContact.contactId) != nil { m.updateContact(toContact) }
        case .contactDeletedByContact(let user, let contact):
            if active(user) { m.updateContact(contact) }
        case .newChatItems(let user, let items):
            if active(user) { m.addChatItems(items) }
        case .chatItemUpdated(let user, let aItem):
            if active(user) { m.upsertChatItem(aItem.chatInfo, aItem.chatItem) }
        case .chatItemNotChanged:
            break
        case .chatItemsDeleted(let user, let deletions, _, _):
            if active(user) { m.applyDeletions(deletions) }
        case .groupChatItemsDeleted(let user, let groupInfo, let itemIds, _, let member):
            if active(user) { m.markItemsDeleted(groupInfo, itemIds, by: member) }
        case .chatItemReaction(let user, _, let reaction):
            if active(user) { m.updateChatItem(reaction.chatInfo, reaction.chatReaction.chatItem) }
        case .chatItemsStatusesUpdated(let user, let items):
            guard active(user) else { return }
            for item in items { m.upsertChatItem(item.chatInfo, item.chatItem) }
        case .chatError(let e):
            errors.append(e)
        case .chatErrors(let es):
            errors.append(contentsOf: es)
        case .businessLinkConnecting(let user, let g, _, let contact):
            guard active(user) else { return }
            m.removeChat(ChatModel.chatId(.direct, contact.contactId))
            m.updateChatInfo(.group(groupInfo: g, groupChatScope: nil))
        case .receivedGroupInvitation(let user, let g, _, _, _), .userAcceptedGroupSent(let user, let g, _),
            .groupLinkConnecting(let user, let g, _), .acceptingGroupJoinRequestMember(let user, let g, _),
            .groupLinkRejected(let user, let g, _), .rejectingGroupJoinRequestMember(let user, let g, _, _),
            .acceptingBusinessRequest(let user, let g), .businessRequestAlreadyAccepted(let user, let g),
            .userJoinedGroup(let user, let g, _), .joinedGroupMember(let user, let g, _),
            .joinedGroupMemberConnecting(let user, let g, _, _), .connectedToGroupMember(let user, let g, _, _),
            .memberAcceptedByOther(let user, let g, _, _),
            .memberRole(let user, let g, _, _, _, _), .memberBlockedForAll(let user, let g, _, _, _),
            .deletedMember(let user, let g, _, _, _), .deletedMemberUser(let user, let g, _, _), .leftMember(let user, let g, _),
            .groupDeleted(let user, let g, _), .groupUpdated(let user, _, let g, _), .groupMemberUpdated(let user, let g, _, _):
            // The group's chat follows its latest info (membership status, summary, profile).
            if active(user) { m.updateChatInfo(.group(groupInfo: g, groupChatScope: nil)) }
        case .contactRatchetSync(let user, let contact, _), .contactVerificationReset(let user, let contact):
            if active(user) { m.updateContact(contact) }
        case .unknownMemberCreated, .unknownMemberAnnounced:
            break // member records only; the item that follows updates the chat
        case .groupMemberRatchetSync, .groupMemberSwitch, .groupMemberVerificationReset:
            break
        case .contactSwitch(let user, let contact, _):
            if active(user) { m.updateContact(contact) }
        case .newMemberContactReceivedInv(let user, let contact, _, _):
            if active(user) { m.contactConnected(contact) }
        case .contactAndMemberAssociated(let user, _, let g, _, let updated):
            // The iOS app updates the contact and the group (its member now shows the contact).
            guard active(user) else { return }
            m.updateContact(updated)
            m.updateChatInfo(.group(groupInfo: g, groupChatScope: nil))
        case .hostConnected, .hostDisconnected, .subscriptionStatus, .messageError:
            break
        case .file(let f):
            // File events carry the item with its file's new status.
            if let (user, item) = f.userAndItem, active(user) { m.upsertChatItem(item.chatInfo, item.chatItem) }
        case .unknown(let raw):
            invalidEvents.append((raw.typeTag ?? "unknown", (try? ChatJSON.encode(raw)) ?? Data()))
        }
    }
}
