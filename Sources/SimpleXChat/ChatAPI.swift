import ChatCore
import Foundation

/// The app's API functions (seed 002 §2, `SimpleXAPI.swift`): each builds a `ChatCommand`, sends its
/// `commandString` through a `ChatBackend`, decodes the answer as `APIResult<ChatResponse>` and,
/// when a `ChatModel` is attached, applies the change the iOS views apply after the call (a new
/// pending connection, a sent item, ...). Connection commands go through `chatApiSendCmdWithRetry`.
/// An actor, so one instance can be shared by a UI and background tasks.
public actor ChatAPI {
    public nonisolated let backend: any ChatBackend
    public nonisolated let model: ChatModel?
    /// Asked before re-running a command that failed with a relay timeout or network error.
    public var shouldRetry: ShouldRetry
    private let onAlert: (@Sendable (ChatAlert) async -> Void)?
    /// The active user's id, learned from `/user` or `/_create user`.
    private var userId: Int64?

    /// - Parameters:
    ///   - model: state to keep in step with the commands, if any.
    ///   - onAlert: alerts raised by functions that return no alert themselves (also appended to `model.alerts`).
    public init(backend: any ChatBackend, model: ChatModel? = nil, shouldRetry: @escaping ShouldRetry = RetryPolicy.default,
                onAlert: (@Sendable (ChatAlert) async -> Void)? = nil) {
        self.backend = backend
        self.model = model
        self.shouldRetry = shouldRetry
        self.onAlert = onAlert
    }

    public func setShouldRetry(_ f: @escaping ShouldRetry) {
        shouldRetry = f
    }

    // MARK: sending

    /// Sends a command and decodes the answer (`chatApiSendCmd`).
    public func chatApiSendCmd(_ cmd: ChatCommand) async -> APIResult<ChatResponse> {
        await chatApiSendCmd(cmd.commandString)
    }

    /// Sends a raw command string and decodes the answer.
    public func chatApiSendCmd(_ cmd: String) async -> APIResult<ChatResponse> {
        APIResult.decode(await backend.send(cmd))
    }

    /// Sends a command, retrying relay timeouts and network errors while `shouldRetry` agrees.
    public func chatApiSendCmdWithRetry(_ cmd: ChatCommand) async -> RetriedResult<ChatResponse> {
        await SimpleXChat.chatApiSendCmdWithRetry(backend, cmd.commandString, shouldRetry: shouldRetry)
    }

    /// The successful response or the error.
    private func response(_ cmd: ChatCommand) async throws(ChatAPIError) -> ChatResponse {
        try await chatApiSendCmd(cmd).get()
    }

    private func report(_ alert: ChatAlert) async {
        if let model { await model.appendAlert(alert) }
        await onAlert?(alert)
    }

    private func unexpected(_ r: ChatResponse) -> ChatAPIError {
        .unexpectedResponse(type: APIResult<ChatResponse>.result(r).responseType)
    }

    private func alert(for r: APIResult<ChatResponse>, title: String) -> ChatAlert {
        switch r {
        case .error(let e): ChatAlert.connectionError(e, title: title)
        case .invalid(let type, _): ChatAlert(title: title, message: "unexpected response: \(type)")
        case .result(let r): ChatAlert(title: title, message: "unexpected response: \(APIResult<ChatResponse>.result(r).responseType)")
        }
    }

    // MARK: users and chat

    /// The active user, or nil when none was created yet (`/user`); updates `model.currentUser`.
    public func apiGetActiveUser() async throws(ChatAPIError) -> User? {
        switch await chatApiSendCmd(.showActiveUser) {
        case .result(.activeUser(let user)):
            await setUser(user)
            return user
        case .error(.error(errorType: .noActiveUser)): return nil
        case let r: throw errorOf(r)
        }
    }

    /// Creates the first (or another) user profile and makes it active (`/_create user`).
    public func apiCreateActiveUser(_ profile: Profile?, pastTimestamp: Bool = false) async throws(ChatAPIError) -> User {
        let r = try await response(.createActiveUser(NewUser(profile: profile, pastTimestamp: pastTimestamp)))
        guard case .activeUser(let user) = r else { throw unexpected(r) }
        await setUser(user)
        return user
    }

    /// Starts the core (`/_start`): true when it started, false when it was already running.
    @discardableResult
    public func startChat(mainApp: Bool = true) async throws(ChatAPIError) -> Bool {
        let r = try await response(.startChat(mainApp: mainApp, enableSndFiles: mainApp))
        let started: Bool
        switch r {
        case .chatStarted: started = true
        case .chatRunning: started = false
        default: throw unexpected(r)
        }
        if let model { await model.setChatRunning(true) }
        return started
    }

    /// Stops the core (`/_stop`).
    public func apiStopChat() async throws(ChatAPIError) {
        let r = try await response(.apiStopChat)
        guard case .chatStopped = r else { throw unexpected(r) }
        if let model { await model.setChatRunning(false) }
    }

    /// The chat list with pending connections (`/_get chats <userId> pcc=on`); replaces `model.chats`.
    @discardableResult
    public func apiGetChats() async throws(ChatAPIError) -> [AChat] {
        let userId = try await activeUserId()
        let r = try await response(.apiGetChats(userId: userId, pendingConnections: true, pagination: .defaultPagination, query: .none))
        guard case .apiChats(_, let chats) = r else { throw unexpected(r) }
        if let model { await model.updateChats(chats) }
        return chats
    }

    /// The last `count` items of a chat (`/_get chat`); replaces the chat's items in the model.
    @discardableResult
    public func apiGetChat(type: ChatType, id: Int64, count: Int = 100) async throws(ChatAPIError) -> AChat {
        let r = try await response(.apiGetChat(chatRef: ChatRef(type, id), contentTag: nil, pagination: .last(count: count), search: nil))
        guard case .apiChat(_, let chat, _) = r else { throw unexpected(r) }
        if let model { await model.addChat(Chat(chat)) }
        return chat
    }

    private func setUser(_ user: User) async {
        userId = user.userId
        if let model { await model.setCurrentUser(user) }
    }

    private func activeUserId() async throws(ChatAPIError) -> Int64 {
        if let userId { return userId }
        guard let user = try await apiGetActiveUser() else { throw .noActiveUser }
        return user.userId
    }

    private func errorOf(_ r: APIResult<ChatResponse>) -> ChatAPIError {
        switch r {
        case .error(let e): .chat(e)
        case .invalid(let type, let json): .invalid(type: type, json: json)
        case .result(let r): unexpected(r)
        }
    }

    // MARK: connections (seed 001)

    /// Creates a one-time invitation (seed 001 §1); the pending connection is added to the model.
    public func apiAddContact(incognito: Bool) async -> ((CreatedConnLink, PendingContactConnection)?, ChatAlert?) {
        let userId: Int64
        do { userId = try await activeUserId() } catch { return (nil, error.alert) }
        let r = await chatApiSendCmdWithRetry(.apiAddContact(userId: userId, incognito: incognito)).result
        if case .result(.invitation(_, let link, let connection)) = r {
            if let model { await model.updateContactConnection(connection) }
            return ((link, connection), nil)
        }
        return (nil, alert(for: r, title: "Error creating invitation link"))
    }

    /// What connecting via `connLink` would do (seed 001 §2.4).
    public func apiConnectPlan(connLink: String) async -> ((CreatedConnLink, ConnectionPlan)?, ChatAlert?) {
        let userId: Int64
        do { userId = try await activeUserId() } catch { return (nil, error.alert) }
        let r = await chatApiSendCmdWithRetry(.apiConnectPlan(userId: userId, connectionLink: connLink)).result
        switch r {
        case .result(.connectionPlan(_, let link, .error(let e))):
            return ((link, .error(chatError: e)), ChatAlert.connectionError(e))
        case .result(.connectionPlan(_, let link, let plan)):
            return ((link, plan), nil)
        default:
            return (nil, alert(for: r, title: "Connection error"))
        }
    }

    /// Joins an invitation or address (seed 001 §2.6). `contactAlreadyExists` and errors are
    /// reported as alerts and give nil; `apiConnectResult` returns them instead.
    public func apiConnect(incognito: Bool, connLink: CreatedConnLink) async -> (ConnReqType, PendingContactConnection)? {
        switch await apiConnectResult(incognito: incognito, connLink: connLink) {
        case .connecting(let type, let pcc): return (type, pcc)
        case .contactAlreadyExists(let contact):
            await report(ChatAlert(title: "Contact already exists", message: "You are already connected to \(contact.profile.displayName)."))
            return nil
        case .failed(let alert):
            await report(alert)
            return nil
        }
    }

    /// `apiConnect` with every outcome as a value; the pending connection is added to the model.
    public func apiConnectResult(incognito: Bool, connLink: CreatedConnLink) async -> ConnectResult {
        let userId: Int64
        do { userId = try await activeUserId() } catch { return .failed(error.alert) }
        let r = await chatApiSendCmdWithRetry(.apiConnect(userId: userId, incognito: incognito, connLink: connLink)).result
        let type: ConnReqType
        let pcc: PendingContactConnection
        switch r {
        case .result(.sentConfirmation(_, let connection, _)):
            (type, pcc) = (.invitation, connection)
        case .result(.sentInvitation(_, let connection, _)):
            (type, pcc) = (connection.groupLinkId == nil ? .contact : .groupLink, connection)
        case .result(.contactAlreadyExists(_, let contact)):
            return .contactAlreadyExists(contact)
        default:
            return .failed(alert(for: r, title: "Connection error"))
        }
        if let model { await model.updateContactConnection(pcc) }
        return .connecting(type, pcc)
    }

    /// Seed 001 §3: a chat for the contact behind a link, from the data the link carries, shown
    /// before connecting (`/_prepare contact`); added to the model's chat list.
    public func apiPrepareContact(connLink: CreatedConnLink, contactShortLinkData: ContactShortLinkData) async throws(ChatAPIError) -> AChat {
        let userId = try await activeUserId()
        switch try await response(.apiPrepareContact(userId: userId, connLink: connLink, contactShortLinkData: contactShortLinkData)) {
        case .newPreparedChat(_, let chat):
            if let model { await model.addChat(Chat(chat)) }
            return chat
        case let r: throw unexpected(r)
        }
    }

    /// Seed 001 §3.5: connects a prepared contact (`/_connect contact`), with an optional first
    /// message for an address; the contact in the model is updated.
    public func apiConnectPreparedContact(contactId: Int64, incognito: Bool, msg: MsgContent?) async throws(ChatAPIError) -> Contact {
        switch try await response(.apiConnectPreparedContact(contactId: contactId, incognito: incognito, msgContent: msg)) {
        case .startedConnectionToContact(_, let contact, _):
            if let model { await model.updateContact(contact) }
            return contact
        case let r: throw unexpected(r)
        }
    }

    /// Seed 001 §3.2: a prepared group from a group link's data (`/_prepare group`). `directLink`
    /// is true for group links; channel relay links (false) are not supported by this core.
    public func apiPrepareGroup(connLink: CreatedConnLink, directLink: Bool, groupShortLinkData: GroupShortLinkData) async throws(ChatAPIError) -> AChat {
        guard directLink else { throw .unsupported("channels (relay links) are not supported") }
        let userId = try await activeUserId()
        switch try await response(.apiPrepareGroup(userId: userId, connLink: connLink, groupShortLinkData: groupShortLinkData)) {
        case .newPreparedChat(_, let chat):
            if let model { await model.addChat(Chat(chat)) }
            return chat
        case let r: throw unexpected(r)
        }
    }

    /// Seed 001 §3.5 for groups: joins a prepared group (`/_connect group`). Basic groups have no
    /// relays, so the relay results are always empty.
    public func apiConnectPreparedGroup(groupId: Int64, incognito: Bool, msg: MsgContent?) async throws(ChatAPIError) -> (GroupInfo, [RelayConnectionResult]) {
        switch try await response(.apiConnectPreparedGroup(groupId: groupId, incognito: incognito, msgContent: msg)) {
        case .startedConnectionToGroup(_, let groupInfo, _):
            if let model { await model.updateChatInfo(.group(groupInfo: groupInfo, groupChatScope: nil)) }
            return (groupInfo, [])
        case let r: throw unexpected(r)
        }
    }

    /// Accepts a contact request (seed 001 §4.4); in the model the request becomes the contact.
    /// Errors are reported as alerts (AUTH: the sender may have deleted the request).
    public func apiAcceptContactRequest(incognito: Bool, contactReqId: Int64) async -> Contact? {
        let r = await chatApiSendCmdWithRetry(.apiAcceptContact(incognito: incognito, contactReqId: contactReqId)).result
        switch r {
        case .result(.acceptingContactRequest(_, let contact)):
            if let model { await model.replaceContactRequest(contactReqId, with: contact) }
            return contact
        case .error(.errorAgent(agentError: .smp(_, .auth), _, _)):
            await report(ChatAlert(title: "Connection error (AUTH)", message: "Sender may have deleted the connection request."))
        default:
            await report(alert(for: r, title: "Error accepting contact request"))
        }
        return nil
    }

    /// Rejects a contact request (seed 001 §4.8); it leaves the model.
    public func apiRejectContactRequest(contactReqId: Int64) async throws(ChatAPIError) {
        let r = try await response(.apiRejectContact(contactReqId: contactReqId))
        guard case .contactRequestRejected = r else { throw unexpected(r) }
        if let model { await model.removeContactRequest(contactReqId) }
    }

    /// Creates the user's address (seed 001 §6); `model.userAddress` is set from `/_show_address`.
    public func apiCreateUserAddress() async throws(ChatAPIError) -> CreatedConnLink? {
        let userId = try await activeUserId()
        let r = try await response(.apiCreateMyAddress(userId: userId, pqRatchet: nil))
        guard case .userContactLinkCreated(_, let link) = r else { throw unexpected(r) }
        if let model {
            let address = (try? await apiGetUserAddress()) ?? UserContactLink(userContactLinkId: 0, connLinkContact: link)
            await model.setUserAddress(address)
        }
        return link
    }

    /// The user's address, or nil when there is none (`/_show_address`).
    public func apiGetUserAddress() async throws(ChatAPIError) -> UserContactLink? {
        let userId = try await activeUserId()
        switch await chatApiSendCmd(.apiShowMyAddress(userId: userId)) {
        case .result(.userContactLink(_, let link)): return link
        case .error(.errorStore(storeError: .userContactLinkNotFound)): return nil
        case let r: throw errorOf(r)
        }
    }

    /// Deletes the user's address and its queues (seed 001 §6.7).
    @discardableResult
    public func apiDeleteUserAddress() async throws(ChatAPIError) -> User? {
        let userId = try await activeUserId()
        let r = try await response(.apiDeleteMyAddress(userId: userId))
        guard case .userContactLinkDeleted(let user) = r else { throw unexpected(r) }
        if let model { await model.setUserAddress(nil) }
        return user
    }

    /// Switches a pending connection to or from an incognito profile (seed 001 §7.6).
    @discardableResult
    public func apiSetConnectionIncognito(connId: Int64, incognito: Bool) async throws(ChatAPIError) -> PendingContactConnection? {
        let r = try await response(.apiSetConnectionIncognito(connId: connId, incognito: incognito))
        guard case .connectionIncognitoUpdated(_, let connection, _) = r else { throw unexpected(r) }
        if let model { await model.updateContactConnection(connection) }
        return connection
    }

    // MARK: messages (seed 003)

    /// Sends messages (seed 003 §1, §7 with `quotedItemId`); the new items (status `sndNew`) are
    /// added to the model. Errors are reported as alerts and give nil.
    public func apiSendMessages(type: ChatType, id: Int64, live: Bool = false, ttl: Int? = nil,
                                composedMessages: [ComposedMessage]) async -> [ChatItem]? {
        let r = await chatApiSendCmd(.apiSendMessages(sendRef: ChatRef(type, id), liveMessage: live, ttl: ttl, composedMessages: composedMessages))
        guard case .result(.newChatItems(_, let items)) = r else {
            await report(alert(for: r, title: "Error sending message"))
            return nil
        }
        await addItems(items)
        return items.map(\.chatItem)
    }

    /// Edits a sent message (seed 003 §4); `chatItemNotChanged` is not an error.
    @discardableResult
    public func apiUpdateChatItem(type: ChatType, id: Int64, itemId: Int64, updatedMessage: UpdatedMessage,
                                  live: Bool = false) async throws(ChatAPIError) -> ChatItem {
        let r = try await response(.apiUpdateChatItem(chatRef: ChatRef(type, id), chatItemId: itemId, liveMessage: live, updatedMessage: updatedMessage))
        switch r {
        case .chatItemUpdated(_, let aItem), .chatItemNotChanged(_, let aItem):
            if let model { await model.upsertChatItem(aItem.chatInfo, aItem.chatItem) }
            return aItem.chatItem
        default: throw unexpected(r)
        }
    }

    /// Deletes items for me (`.internal`) or for everyone (`.broadcast`) (seed 003 §5).
    @discardableResult
    public func apiDeleteChatItems(type: ChatType, id: Int64, itemIds: [Int64], mode: CIDeleteMode) async throws(ChatAPIError) -> [ChatItemDeletion] {
        let r = try await response(.apiDeleteChatItem(chatRef: ChatRef(type, id), chatItemIds: itemIds, deleteMode: mode))
        guard case .chatItemsDeleted(_, let deletions, _, _) = r else { throw unexpected(r) }
        if let model { await model.applyDeletions(deletions) }
        return deletions
    }

    /// Adds or removes a reaction (seed 003 §6); returns the item with its new reaction counts.
    @discardableResult
    public func apiChatItemReaction(type: ChatType, id: Int64, itemId: Int64, add: Bool, reaction: MsgReaction) async throws(ChatAPIError) -> ChatItem {
        let r = try await response(.apiChatItemReaction(chatRef: ChatRef(type, id), chatItemId: itemId, add: add, reaction: reaction))
        guard case .chatItemReaction(_, _, let aReaction) = r else { throw unexpected(r) }
        if let model { await model.updateChatItem(aReaction.chatInfo, aReaction.chatReaction.chatItem) }
        return aReaction.chatReaction.chatItem
    }

    /// Which of the items can be forwarded, and what to confirm first (seed 003 §8.3).
    public func apiPlanForwardChatItems(type: ChatType, id: Int64, itemIds: [Int64]) async throws(ChatAPIError) -> ([Int64], ForwardConfirmation?) {
        let r = try await response(.apiPlanForwardChatItems(fromChatRef: ChatRef(type, id), chatItemIds: itemIds))
        guard case .forwardPlan(_, _, let ids, let confirmation) = r else { throw unexpected(r) }
        return (ids, confirmation)
    }

    /// Forwards items to another (or the same) chat (seed 003 §8.5); the new items join the model.
    public func apiForwardChatItems(toChatType: ChatType, toChatId: Int64, fromChatType: ChatType, fromChatId: Int64,
                                    itemIds: [Int64], ttl: Int? = nil) async throws(ChatAPIError) -> [ChatItem] {
        let r = try await response(.apiForwardChatItems(toChatRef: ChatRef(toChatType, toChatId), fromChatRef: ChatRef(fromChatType, fromChatId),
                                                        chatItemIds: itemIds, ttl: ttl))
        guard case .newChatItems(_, let items) = r else { throw unexpected(r) }
        await addItems(items)
        return items.map(\.chatItem)
    }

    private func addItems(_ items: [AChatItem]) async {
        guard let model else { return }
        await model.addChatItems(items)
    }
}
