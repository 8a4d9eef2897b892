import Foundation
import GRDB
import NIOCore
import NIOPosix
import SMPAgent
import SMPClient
import SMPTransport

/// The chat core behind the command API (seed 002 §1-4): parses command strings, runs them,
/// answers `{"result": ...}` or `{"error": ...}`, and queues events for the layer above.
/// Several controllers can live in one process; each owns its chat and agent databases.
public actor ChatController {
    /// Settings the host gives when opening the core (the CLI's `-s` servers, for example).
    public struct Config: Sendable {
        /// SMP relays used when the user configured none.
        public var defaultSMPServers: [String] = []
        /// How long (seconds) a "sent" mark may wait for another write transaction to carry it
        /// before it is written on its own (issue 14; docs/protocol-notes.md, "Chat database writes").
        /// 0 or less: written as it arrives, in a transaction of its own (as before issue 14).
        public var deferredStatusDelay: Double = 1.0
        /// XFTP servers for files when the user configured none (issue 15).
        public var defaultXFTPServers: [String] = []
        /// Where received files go and relative file paths are resolved (`--files-folder`,
        /// `/_files_folder`); nil: received files go to ~/Downloads with absolute paths.
        public var filesFolder: String?
        /// Folder for encrypted copies and chunks while files travel (default `<prefix>_xftp`).
        public var tempFolder: String?
        /// Files smaller than this are received without `/freceive` (simplex-chat `autoAcceptFileSize`).
        public var autoAcceptFileSize: Int64 = 0
        /// Received files are kept encrypted on disk unless `/freceive` says otherwise.
        public var encryptLocalFiles = false
        /// The chat protocol versions advertised in every message (simplex-chat `chatVRange` of
        /// ChatConfig); tests narrow it to play an older peer.
        public var chatVRange: VersionRange = ChatProtocolVersion.supportedRange
        /// Decides join requests through our group links (simplex-chat's `acceptMember` chat
        /// hook, used by bots): nil accepts everyone with the link's role.
        public var acceptMember: (@Sendable (GroupInfo, Profile) -> GroupJoinDecision)? = nil
        /// Contact-merging probes (simplex-chat `contactMergeEnabled`, on by default): off, every
        /// probe we send is random and unrecorded, and probes we receive are ignored.
        public var contactMerge = true
        /// Private message routing before any `/_network` (simplexmq `defaultNetworkConfig`:
        /// never, allow; the terminal client passes its `--smp-proxy` options).
        public var smpProxyMode: SMPProxyMode = .never
        public var smpProxyFallback: SMPProxyFallback = .allow
        public init() {}
    }

    public nonisolated let dbPrefix: String
    public nonisolated let config: Config
    /// Replaced when the database is re-keyed or closed and reopened (`chat_reopen_store`).
    var store: ChatStore
    /// The passphrase of both databases ("" for plain files); the agent opens its file with it.
    var dbKey: String
    /// Between `closeStore()` and `reopenStore()`: commands answer an error, nothing is open.
    var storeClosed = false
    /// Whether the agent ran when the store was closed, so reopening resumes it.
    var runningBeforeClose = false
    let group: any EventLoopGroup
    let events = EventQueue()
    var agent: SMPAgent?
    var agentEvents: Task<Void, Never>?
    /// Deletes timed (disappearing) messages when their time comes.
    var timedDeletions: Task<Void, Never>?
    var closed = false
    /// Delivery statuses that arrived before their chat item had its agent message id.
    var earlyStatuses: [EarlyKey: CIStatus] = [:]
    /// Writes deferred "sent" marks when no other write has carried them in time.
    var deferredFlush: Task<Void, Never>?
    /// Last reported state of each relay, so a drop is reported once, not per connection.
    var hostsUp: [String: Bool] = [:]
    /// File uploads and downloads under way (issue 15).
    let files: FileTransfers
    /// The NetworkConfig JSON last set with `/_network` (ChatController+Network); nil: defaults.
    var networkConfig: [String: JSONValue]?
    /// Decoded JSON columns the hot reads repeat (preferences, statuses, contents).
    nonisolated let decoded = DecodedJSONCache()
    /// Contacts' items as the last write that stored messages inserted them: `chatItem(_:)` makes
    /// them from these values while no write has followed (issue 16).
    var insertedItems: InsertedItems?

    /// The chat database file for a prefix (`<prefix>_chat.db`).
    public static func chatDatabasePath(_ prefix: String) -> String { prefix + "_chat.db" }
    /// The agent database file for a prefix (`<prefix>_agent.db`).
    public static func agentDatabasePath(_ prefix: String) -> String { prefix + "_agent.db" }

    private init(dbPrefix: String, config: Config, store: ChatStore, key: String, group: any EventLoopGroup) {
        self.dbPrefix = dbPrefix
        self.config = config
        self.store = store
        self.dbKey = key
        self.group = group
        self.files = FileTransfers(group: group, filesFolder: config.filesFolder, encryptLocalFiles: config.encryptLocalFiles)
    }

    /// Opens (creating or migrating) the chat database at `<prefix>_chat.db`; the controller
    /// exists only when the result is `.ok` (`chat_migrate_init`).
    public static func open(dbPrefix: String, key: String = "", confirm: MigrationConfirmation = .yesUp, config: Config = Config(),
                            group: any EventLoopGroup) -> (ChatController?, DBMigrationResult) {
        switch ChatStore.open(path: chatDatabasePath(dbPrefix), key: key, confirm: confirm) {
        case .success(let store):
            return (ChatController(dbPrefix: dbPrefix, config: config, store: store, key: key, group: group), .ok)
        case .failure(let r):
            return (nil, r)
        }
    }

    /// Runs one command string and answers with the API's JSON envelope (encoded by the caller's
    /// task, outside the actor).
    public nonisolated func send(_ command: String) async -> String {
        switch await execute(command) {
        case .success(let r): return r.resultJSONString(memo: events.memo)
        case .failure(let e): return e.errorJSONString()
        }
    }

    /// Runs one command string; malformed commands are `commandError`, never a crash.
    public func execute(_ command: String) async -> Result<ChatResponse, ChatError> {
        guard !closed else { return .failure(.error(errorType: .chatNotStarted)) }
        guard !storeClosed else { return .failure(.errorDatabase(databaseError: .errorOpen(sqliteError: .error(dbError: "the database is closed (chat_close_store)")))) }
        switch ChatCommand.parse(command) {
        case .failure(let e): return .failure(e)
        case .success(let cmd): return await run(cmd)
        }
    }

    /// Runs one typed command (the Swift API the terminal uses): the same checks and answers as
    /// the text form, without parsing or JSON.
    public func run(_ command: ChatCommand) async -> Result<ChatResponse, ChatError> {
        guard !closed else { return .failure(.error(errorType: .chatNotStarted)) }
        guard !storeClosed else { return .failure(.errorDatabase(databaseError: .errorOpen(sqliteError: .error(dbError: "the database is closed (chat_close_store)")))) }
        do { return .success(try await execute(command)) } catch { return .failure(error) }
    }

    /// The next event, typed, waiting up to `timeout` seconds (nil on timeout or close).
    public nonisolated func nextChatEvent(timeout: Double) async -> ChatEvent? {
        await events.popEvent(timeout: timeout)
    }

    /// The next event as `{"result": <ChatEvent>}`, waiting up to `timeout` seconds.
    public nonisolated func nextEvent(timeout: Double) async -> String? {
        await events.pop(timeout: timeout)
    }

    func emit(_ e: ChatEvent) { events.push(e) }

    /// Write transactions on the chat database since it was opened (for chat-bench).
    public var chatDatabaseWrites: Int { store.writeCount }

    /// Pages the chat database's commits wrote since it was opened (WAL frames, for chat-bench).
    public var chatDatabasePagesWritten: Int { store.pagesWritten }

    /// Stops the agent and closes both databases; later calls answer `chatNotStarted`.
    public func close() async {
        closed = true
        await stopAgent()
        store.close()
        events.close()
    }

    /// Mentions exist in groups only: a direct chat refuses them (simplex-chat `assertNoMentions`
    /// in `APISendMessages`, the same check in `APIUpdateChatItem`).
    static func assertSupported(_ messages: [ComposedMessage]) throws(ChatError) {
        for m in messages {
            if !m.mentions.isEmpty {
                throw .error(errorType: .commandError(message: "mentions are not supported in this chat"))
            }
        }
    }

    func execute(_ cmd: ChatCommand) async throws(ChatError) -> ChatResponse {
        switch cmd {
        case .showActiveUser:
            return .activeUser(user: try activeUser())
        case .createActiveUser(let new):
            return .activeUser(user: try createUser(new))
        case .listUsers:
            return .usersList(users: try users().map { u throws(ChatError) in
                UserInfo(user: u, unreadCount: try store.read { db in try db.userUnreadCount(u.userId) })
            })
        case .apiSetActiveUser(let userId, _):
            return .activeUser(user: try setActiveUser(userId))
        case .startChat:
            return try await startAgent() ? .chatStarted : .chatRunning
        case .apiStopChat:
            await stopAgent()
            return .chatStopped
        case .apiStorageEncryption(let cfg):
            return try changeDatabaseKey(cfg)
        case .testStorageEncryption(let key):
            return try testDatabaseKey(key)
        case .getUserProtoServers:
            return try userServers(userId: try activeUser().userId)
        case .apiTestProtoServer(let userId, let server):
            return try await testServer(userId: userId, server)
        case .testProtoServer(let server):
            return try await testServer(userId: try activeUser().userId, server)
        case .apiGetUserServers(let userId):
            return try userServers(userId: userId)
        case .apiDeleteUser(let userId, let delSMPQueues, _):
            return try await deleteUser(userId, delSMPQueues: delSMPQueues)
        case .apiSetProfileAddress(let userId, let enable):
            return try await setProfileAddress(userId: userId, enable: enable)
        case .setUserProtoServers(let proto, let servers):
            try setServers(proto, servers)
            return .cmdOk(user_: try? activeUser())
        case .apiAddContact(let userId, let incognito):
            return try await addContact(userId: userId, incognito: incognito)
        case .addContact(let incognito):
            return try await addContact(userId: try activeUser().userId, incognito: incognito)
        case .apiConnectPlan(let userId, let link):
            return try await connectPlan(userId: userId, link: link)
        case .apiConnect(let userId, let incognito, let link):
            return try await connect(userId: userId, incognito: incognito, link: link.connFullLink)
        case .connect(let incognito, let link):
            return try await connect(userId: try activeUser().userId, incognito: incognito, link: link)
        case .apiPrepareContact(let userId, let link, let data):
            return try prepareContact(userId: userId, link: link, data: data)
        case .apiConnectPreparedContact(let contactId, let incognito, let mc):
            return try await connectPreparedContact(contactId: contactId, incognito: incognito, message: mc)
        case .apiAcceptContact(let incognito, let reqId):
            return try await acceptContact(requestId: reqId, incognito: incognito)
        case .apiRejectContact(let reqId):
            return try await rejectContact(requestId: reqId)
        case .apiSetConnectionIncognito(let connId, let incognito):
            return try setConnectionIncognito(connId: connId, incognito: incognito)
        case .apiCreateMyAddress(let userId, let pqRatchet):
            return try await createAddress(userId: userId, pqRatchet: pqRatchet)
        case .apiShowMyAddress(let userId):
            return try showAddress(userId: userId)
        case .apiDeleteMyAddress(let userId):
            return try await deleteAddress(userId: userId)
        case .createMyAddress:
            return try await createAddress(userId: try activeUser().userId, pqRatchet: nil)
        case .showMyAddress:
            return try showAddress(userId: try activeUser().userId)
        case .deleteMyAddress:
            return try await deleteAddress(userId: try activeUser().userId)
        case .apiSendMessages(let ref, let live, let ttl, let messages):
            if ref.chatType != .group { try Self.assertSupported(messages) }
            return try await sendMessages(ref, ttl: ttl, live: live, messages)
        case .apiGetChats(let userId, let pcc, let pagination, let query):
            return try getChats(userId: userId, pendingConnections: pcc, pagination: pagination, query: query)
        case .apiGetChat(let ref, let contentTag, let pagination, let search):
            return try getChat(ref, contentTag: contentTag, pagination: pagination, search: search)
        case .apiChatRead(let ref):
            return try readChat(ref)
        case .apiChatItemsRead(let ref, let itemIds):
            return try readChatItems(ref, itemIds)
        case .apiListContacts(let userId):
            return try listContacts(userId: userId)
        case .apiUpdateChatItem(let ref, let itemId, let live, let updated):
            if ref.chatType != .group, !updated.mentions.isEmpty {
                throw .error(errorType: .commandError(message: "mentions are not supported in this chat"))
            }
            if ref.chatType == .group, ref.chatScope != nil { return try await updateSupportItem(ref, itemId, live: live, updated) }
            return try await updateItem(ref, itemId, live: live, updated)
        case .apiDeleteChatItem(let ref, let itemIds, let mode):
            if ref.chatType == .group, ref.chatScope != nil { return try await deleteSupportItems(ref, itemIds, mode: mode) }
            return try await deleteItems(ref, itemIds, mode: mode)
        case .apiChatItemReaction(let ref, let itemId, let add, let reaction):
            if ref.chatType == .group, ref.chatScope != nil { return try await reactInSupportChat(ref, itemId, add: add, reaction) }
            return try await react(ref, itemId, add: add, reaction)
        case .apiPlanForwardChatItems(let from, let itemIds):
            return try forwardPlan(from, itemIds)
        case .apiForwardChatItems(let to, let from, let itemIds, let ttl):
            return try await forward(to: to, from: from, itemIds, ttl: ttl)
        case .apiSetAddressSettings(let userId, let pqRatchet, let settings):
            return try await setAddressSettings(userId: userId, pqRatchet: pqRatchet, settings)
        case .apiSetContactAlias(let contactId, let alias):
            return try setContactAlias(contactId, alias)
        case .apiSetConnectionAlias(let connId, let alias):
            return try setConnectionAlias(connId, alias)
        case .apiSetContactCustomData(let contactId, let data):
            return try setContactCustomData(contactId, data)
        case .apiSetGroupCustomData(let groupId, let data):
            return try setGroupCustomData(groupId, data)
        case .apiSetContactPrefs(let contactId, let prefs):
            return try await setContactPrefs(contactId: contactId, prefs)
        case .apiDeleteChat(let ref, let mode):
            return try await deleteChat(ref, mode)
        case .apiNewGroup(let userId, let incognito, let profile):
            return try createGroup(userId: userId, incognito: incognito, profile)
        case .apiAddMember(let groupId, let contactId, let role):
            return try await addMember(groupId: groupId, contactId: contactId, role: role)
        case .apiJoinGroup(let groupId):
            return try await joinGroup(groupId: groupId)
        case .apiCreateMemberContact(let groupId, let groupMemberId):
            return try await createMemberContact(groupId: groupId, groupMemberId: groupMemberId)
        case .apiSendMemberContactInvitation(let contactId, let mc):
            return try await sendMemberContactInvitation(contactId: contactId, mc)
        case .apiAcceptMemberContact(let contactId):
            return try await acceptMemberContact(contactId: contactId)
        case .apiSetUserAutoAcceptMemberContacts(let userId, let on):
            let user = try userById(userId)
            try store.write { db in try db.setUserAutoAcceptMemberContacts(userId, on) }
            return .cmdOk(user_: user)
        case .apiListMembers(let groupId):
            return try listMembers(groupId: groupId)
        case .apiListGroups(let userId, let contactId, let search):
            return try listGroups(userId: userId, contactId: contactId, search: search)
        case .apiMembersRole(let groupId, let ids, let role):
            return try await changeMembersRole(groupId: groupId, ids, role)
        case .apiAcceptMember(let groupId, let gmId, let role):
            return try await acceptMember(groupId: groupId, groupMemberId: gmId, role: role)
        case .apiDeleteMemberSupportChat(let groupId, let gmId):
            return try deleteMemberSupportChat(groupId: groupId, groupMemberId: gmId)
        case .apiBlockMembersForAll(let groupId, let ids, let blocked):
            return try await blockMembersForAll(groupId: groupId, ids, blocked: blocked)
        case .apiSetMemberSettings(let groupId, let gmId, let settings):
            return try setMemberSettings(groupId: groupId, groupMemberId: gmId, settings)
        case .apiRemoveMembers(let groupId, let ids, let withMessages):
            return try await removeMembers(groupId: groupId, ids, withMessages: withMessages)
        case .apiLeaveGroup(let groupId):
            return try await leaveGroup(groupId: groupId)
        case .apiUpdateGroupProfile(let groupId, let profile):
            return try await updateGroupProfile(groupId: groupId, profile)
        case .apiCreateGroupLink(let groupId, let role):
            return try await createGroupLink(groupId: groupId, role: role)
        case .apiGroupLinkMemberRole(let groupId, let role):
            return try setGroupLinkRole(groupId: groupId, role)
        case .apiDeleteGroupLink(let groupId):
            return try await deleteGroupLink(groupId: groupId)
        case .apiGetGroupLink(let groupId):
            return try getGroupLink(groupId: groupId)
        case .apiPrepareGroup(let userId, let link, let data):
            return try prepareGroup(userId: userId, link: link, data: data)
        case .apiConnectPreparedGroup(let groupId, let incognito, let mc):
            return try await connectPreparedGroup(groupId: groupId, incognito: incognito, message: mc)
        case .apiDeleteMemberChatItem(let groupId, let itemIds):
            return try await deleteMemberItems(groupId: groupId, itemIds)
        case .apiReportMessage(let groupId, let itemId, let reason, let text):
            return try await reportMessage(groupId: groupId, itemId: itemId, reason: reason, text: text)
        case .reportMessage(let groupName, let member, let reason, let text):
            return try await reportMessage(groupName: groupName, member: member, reason: reason, text: text)
        case .apiArchiveReceivedReports(let groupId):
            return try archiveReceivedReports(groupId: groupId)
        case .apiDeleteReceivedReports(let groupId, let itemIds, let mode):
            return try await deleteReceivedReports(groupId: groupId, itemIds, mode: mode)
        case .apiUpdateProfile(let userId, let profile):
            return try await updateProfile(userId: userId, profile)
        case .apiSyncContactRatchet(let contactId, let force): return try await syncContactRatchet(contactId: contactId, force: force)
        case .apiGetContactCode(let contactId): return try await getContactCode(contactId: contactId)
        case .apiGetGroupMemberCode(let g, let m): return try await getMemberCode(groupId: g, groupMemberId: m)
        case .apiVerifyContact(let contactId, let code): return try await verifyContact(contactId: contactId, code: code)
        case .apiVerifyGroupMember(let g, let m, let code): return try await verifyMember(groupId: g, groupMemberId: m, code: code)
        case .apiSyncGroupMemberRatchet(let g, let m, let force): return try await syncMemberRatchet(groupId: g, groupMemberId: m, force: force)
        case .apiSwitchContact(let id): return try await switchContact(contactId: id, abort: false)
        case .apiSwitchGroupMember(let g, let m): return try await switchMember(groupId: g, groupMemberId: m, abort: false)
        case .apiAbortSwitchContact(let id): return try await switchContact(contactId: id, abort: true)
        case .apiAbortSwitchGroupMember(let g, let m): return try await switchMember(groupId: g, groupMemberId: m, abort: true)
        case .receiveFile, .cancelFile, .fileStatus, .setFilesFolder, .apiSetEncryptLocalFiles:
            return try await executeFileCommand(cmd)
        case .apiSetNetworkConfig(let cfg):
            return try await setNetworkConfig(cfg)
        case .apiGetNetworkConfig:
            return try getNetworkConfig()
        case .setNetworkConfig(let simple):
            return try await setNetworkConfig(simple)
        case .apiSetUserServers:
            // Parsed, but this build does not run it yet: an explicit error, never a fake answer.
            // No `default:` here: a new command does not compile until it is dispatched.
            throw .error(errorType: .commandError(message: "not supported yet: \(cmd.commandString)"))
        }
    }
}
