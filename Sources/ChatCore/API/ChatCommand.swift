/// A parsed API command (COMMANDS.md). `ChatCommand.parse` reads the text form clients send;
/// `commandString` writes it back in the canonical form the bot SDKs produce.
public enum ChatCommand: Sendable, Hashable {
    // MARK: users
    /// `/user` (or `/u`).
    case showActiveUser
    /// `/_create user <json(NewUser)>`.
    case createActiveUser(NewUser)
    /// `/users`.
    case listUsers
    /// `/_user <userId>[ <json(viewPwd)>]`.
    case apiSetActiveUser(userId: Int64, viewPwd: String?)
    /// `/_delete user <userId> del_smp=on|off[ <json(viewPwd)>]`.
    case apiDeleteUser(userId: Int64, delSMPQueues: Bool, viewPwd: String?)
    /// `/_profile <userId> <json(Profile)>`.
    case apiUpdateProfile(userId: Int64, profile: Profile)
    /// `/_set prefs @<contactId> <json(Preferences)>`.
    case apiSetContactPrefs(contactId: Int64, preferences: Preferences)
    /// `/_set alias @<contactId> <alias>`: a name only we see.
    case apiSetContactAlias(contactId: Int64, localAlias: String)
    /// `/_set alias :<connId> <alias>`: the same for a pending connection.
    case apiSetConnectionAlias(connId: Int64, localAlias: String)
    /// `/_set custom @<contactId>[ <json(customData)>]`: data a bot keeps with a contact.
    case apiSetContactCustomData(contactId: Int64, customData: [String: JSONValue]?)
    /// `/_set custom #<groupId>[ <json(customData)>]`.
    case apiSetGroupCustomData(groupId: Int64, customData: [String: JSONValue]?)

    // MARK: chat controller
    /// `/_start[ main=on|off[ snd_files=on|off]]`; a bare `/_start` starts as the main app.
    case startChat(mainApp: Bool, enableSndFiles: Bool)
    /// `/_stop`.
    case apiStopChat

    // MARK: database
    /// `/_db encryption <json(DBEncryptionConfig)>`, and the CLI's `/db encrypt <key>`,
    /// `/db key <current> <new>` and `/db decrypt <key>`: re-encrypts both databases.
    case apiStorageEncryption(DBEncryptionConfig)
    /// `/db test key <key>`: whether the key opens the chat database.
    case testStorageEncryption(key: String)

    // MARK: connections
    /// `/_connect <userId>[ incognito=on|off]`: create a one-time invitation.
    case apiAddContact(userId: Int64, incognito: Bool)
    /// `/_connect plan <userId> <link>`.
    case apiConnectPlan(userId: Int64, connectionLink: String)
    /// `/_connect <userId>[ incognito=on|off] <fullLink>[ <shortLink>]`.
    case apiConnect(userId: Int64, incognito: Bool, connLink: CreatedConnLink)
    /// `/connect[ incognito]` (or `/c`) without a link: create an invitation for the active user.
    case addContact(incognito: Bool)
    /// `/connect[ incognito] <link>`, for the active user.
    case connect(incognito: Bool, connLink: String)
    /// `/_prepare contact <userId> <fullLink>[ <shortLink>] <json(ContactShortLinkData)>`: a
    /// contact shown before connecting (seed 001 §3), from the link and the data it carries.
    case apiPrepareContact(userId: Int64, connLink: CreatedConnLink, contactShortLinkData: ContactShortLinkData)
    /// `/_connect contact @<contactId>[ incognito=on|off][ text <msg>| json <MsgContent>]`.
    case apiConnectPreparedContact(contactId: Int64, incognito: Bool, msgContent: MsgContent?)
    /// `/_accept[ incognito=on|off] <contactReqId>`.
    case apiAcceptContact(incognito: Bool, contactReqId: Int64)
    /// `/_reject <contactReqId>`.
    case apiRejectContact(contactReqId: Int64)
    /// `/_set incognito :<connId> on|off`.
    case apiSetConnectionIncognito(connId: Int64, incognito: Bool)

    // MARK: files
    /// `/freceive <fileId>[ approved_relays=on][ encrypt=on|off][ inline=on|off][ <path>]` (`/fr`).
    case receiveFile(fileId: Int64, userApprovedRelays: Bool, storeEncrypted: Bool?, fileInline: Bool?, filePath: String?)
    /// `/fcancel <fileId>` (`/fc`).
    case cancelFile(fileId: Int64)
    /// `/fstatus <fileId>` (`/fs`).
    case fileStatus(fileId: Int64)
    /// `/_files_folder <path>`: where received files go.
    case setFilesFolder(filePath: String)
    /// `/_files_encrypt on|off`: received files are kept encrypted (CryptoFile) by default.
    case apiSetEncryptLocalFiles(enable: Bool)

    // MARK: address
    /// `/_address <userId>[ pq_ratchet=on|off]`.
    case apiCreateMyAddress(userId: Int64, pqRatchet: Bool?)
    /// `/_delete_address <userId>`.
    case apiDeleteMyAddress(userId: Int64)
    /// `/_show_address <userId>`.
    case apiShowMyAddress(userId: Int64)
    /// `/address` (`/ad`), `/delete_address` (`/da`), `/show_address` (`/sa`): the same for the active
    /// user, as bot clients send them (CreateMyAddress, DeleteMyAddress, ShowMyAddress).
    case createMyAddress
    case deleteMyAddress
    case showMyAddress
    /// `/_profile_address <userId> on|off`.
    case apiSetProfileAddress(userId: Int64, enable: Bool)
    /// `/_address_settings <userId>[ pq_ratchet=on|off] <json(AddressSettings)>`.
    case apiSetAddressSettings(userId: Int64, pqRatchet: Bool?, settings: AddressSettings)

    // MARK: messages
    /// `/_send <@id|#id[scope]>[ live=on|off][ ttl=<n>|default] json <json([ComposedMessage])>`
    /// (or ` text <text>`).
    case apiSendMessages(sendRef: ChatRef, liveMessage: Bool, ttl: Int?, composedMessages: [ComposedMessage])
    /// `/_update item <chatRef> <itemId>[ live=on|off] json <json(UpdatedMessage)>` (or ` text <text>`).
    case apiUpdateChatItem(chatRef: ChatRef, chatItemId: Int64, liveMessage: Bool, updatedMessage: UpdatedMessage)
    /// `/_delete item <chatRef> <id>[,<id>...] broadcast|internal|internalMark`.
    case apiDeleteChatItem(chatRef: ChatRef, chatItemIds: [Int64], deleteMode: CIDeleteMode)
    /// `/_reaction <chatRef> <itemId> on|off <json(MsgReaction)>`.
    case apiChatItemReaction(chatRef: ChatRef, chatItemId: Int64, add: Bool, reaction: MsgReaction)
    /// `/_forward plan <chatRef> <id>[,<id>...]`.
    case apiPlanForwardChatItems(fromChatRef: ChatRef, chatItemIds: [Int64])
    /// `/_forward <toChatRef> <fromChatRef> <id>[,<id>...][ ttl=<n>|default]`.
    case apiForwardChatItems(toChatRef: ChatRef, fromChatRef: ChatRef, chatItemIds: [Int64], ttl: Int?)

    // MARK: chats
    /// `/_get chats <userId>[ pcc=on|off][ <pagination>][ <json(ChatListQuery)>]`.
    case apiGetChats(userId: Int64, pendingConnections: Bool, pagination: PaginationByTime, query: ChatListQuery)
    /// `/_get chat <chatRef>[ content=<tag>] <pagination>[ search=<text>]`.
    case apiGetChat(chatRef: ChatRef, contentTag: String?, pagination: ChatPagination, search: String?)
    /// `/_read chat <chatRef>`.
    case apiChatRead(chatRef: ChatRef)
    /// `/_read chat items <chatRef> <chatItemId>[,...]`: only these items are read.
    case apiChatItemsRead(chatRef: ChatRef, chatItemIds: [Int64])
    /// `/_contacts <userId>`.
    case apiListContacts(userId: Int64)
    /// `/_delete <chatRef>[ full|entity|messages[ notify=on|off]]`, or a JSON ChatDeleteMode.
    case apiDeleteChat(chatRef: ChatRef, chatDeleteMode: ChatDeleteMode)

    // MARK: groups
    /// `/_group <userId>[ incognito=on|off] <json(GroupProfile)>`.
    case apiNewGroup(userId: Int64, incognito: Bool, groupProfile: GroupProfile)
    /// `/_add #<groupId> <contactId> <role>`: invite a contact.
    case apiAddMember(groupId: Int64, contactId: Int64, memberRole: GroupMemberRole)
    /// `/_join #<groupId>`: accept an invitation.
    case apiJoinGroup(groupId: Int64)
    /// `/_create member contact #<groupId> <groupMemberId>`: a contact for a group member, with an
    /// invitation link sent later by `/_invite member contact`.
    case apiCreateMemberContact(groupId: Int64, groupMemberId: Int64)
    /// `/_invite member contact @<contactId>[ <json(MsgContent)>]`: x.grp.direct.inv to the member.
    case apiSendMemberContactInvitation(contactId: Int64, msgContent: MsgContent?)
    /// `/_accept member contact @<contactId>`: join the link a member sent in x.grp.direct.inv.
    case apiAcceptMemberContact(contactId: Int64)
    /// `/_set accept member contacts <userId> on|off`: join members' x.grp.direct.inv links at once.
    case apiSetUserAutoAcceptMemberContacts(userId: Int64, onOff: Bool)
    /// `/_members #<groupId>`.
    case apiListMembers(groupId: Int64)
    /// `/_groups <userId>[ @<contactId>][ <search>]`.
    case apiListGroups(userId: Int64, contactId: Int64?, search: String?)
    /// `/_member role #<groupId> <groupMemberId>[,...] <role>`.
    case apiMembersRole(groupId: Int64, groupMemberIds: [Int64], memberRole: GroupMemberRole)
    /// `/_accept member #<groupId> <groupMemberId> <role>`: admit a member pending approval or review.
    case apiAcceptMember(groupId: Int64, groupMemberId: Int64, memberRole: GroupMemberRole)
    /// `/_delete member chat #<groupId> <groupMemberId>`: delete a member's support chat (not a pending member's).
    case apiDeleteMemberSupportChat(groupId: Int64, groupMemberId: Int64)
    /// `/_block #<groupId> <groupMemberId>[,...] blocked=on|off`: block for all members (admins).
    case apiBlockMembersForAll(groupId: Int64, groupMemberIds: [Int64], blocked: Bool)
    /// `/_member settings #<groupId> <groupMemberId> <json(GroupMemberSettings)>`: block for me.
    case apiSetMemberSettings(groupId: Int64, groupMemberId: Int64, memberSettings: GroupMemberSettings)
    /// `/_remove #<groupId> <groupMemberId>[,...][ messages=on|off]`.
    case apiRemoveMembers(groupId: Int64, groupMemberIds: [Int64], withMessages: Bool)
    /// `/_leave #<groupId>`.
    case apiLeaveGroup(groupId: Int64)
    /// `/_group_profile #<groupId> <json(GroupProfile)>`.
    case apiUpdateGroupProfile(groupId: Int64, groupProfile: GroupProfile)
    /// `/_create link #<groupId>[ <role>]` (member by default).
    case apiCreateGroupLink(groupId: Int64, memberRole: GroupMemberRole)
    /// `/_set link role #<groupId> <role>`.
    case apiGroupLinkMemberRole(groupId: Int64, memberRole: GroupMemberRole)
    /// `/_delete link #<groupId>`.
    case apiDeleteGroupLink(groupId: Int64)
    /// `/_get link #<groupId>`.
    case apiGetGroupLink(groupId: Int64)
    /// `/_prepare group <userId> <fullLink>[ <shortLink>] <json(GroupShortLinkData)>`: a group
    /// shown from a link's data before joining (seed 001 §3).
    case apiPrepareGroup(userId: Int64, connLink: CreatedConnLink, groupShortLinkData: GroupShortLinkData)
    /// `/_connect group #<groupId>[ incognito=on|off][ text <msg>| json <MsgContent>]`: join it.
    case apiConnectPreparedGroup(groupId: Int64, incognito: Bool, msgContent: MsgContent?)
    /// `/_delete member item #<groupId> <itemId>[,...]`: moderation of other members' messages.
    case apiDeleteMemberChatItem(groupId: Int64, chatItemIds: [Int64])
    /// `/_report #<groupId> <chatItemId> reason=<reason>[ <text>]` (chat version 12).
    case apiReportMessage(groupId: Int64, chatItemId: Int64, reportReason: ReportReason, reportText: String)
    /// `/report #<group>[ @<member>] <reason> <text>` (simplex-chat ReportMessage): reports the
    /// latest message of the group (of that member) starting with the text.
    case reportMessage(groupName: String, contactName: String?, reportReason: ReportReason, reportedMessage: String)
    /// `/_archive reports #<groupId>`: every received report of the group marked deleted by us.
    case apiArchiveReceivedReports(groupId: Int64)
    /// `/_delete reports #<groupId> <itemId>[,...] broadcast|internal|internalMark`: received
    /// reports only; broadcast deletes them at the other moderators too.
    case apiDeleteReceivedReports(groupId: Int64, chatItemIds: [Int64], deleteMode: CIDeleteMode)
    /// `/_sync @<contactId>[ force=on]`: re-synchronize the contact connection's ratchet.
    case apiSyncContactRatchet(contactId: Int64, force: Bool)
    /// `/_sync #<groupId> <groupMemberId>[ force=on]`: the same for a member's connection.
    case apiSyncGroupMemberRatchet(groupId: Int64, groupMemberId: Int64, force: Bool)
    /// `/_get code @<contactId>`: the security code of the contact's connection.
    case apiGetContactCode(contactId: Int64)
    /// `/_get code #<groupId> <groupMemberId>`: the same for a member's connection.
    case apiGetGroupMemberCode(groupId: Int64, groupMemberId: Int64)
    /// `/_verify code @<contactId>[ <code>]`: marks the connection verified when the code is its
    /// current one; without a code the verification is cleared.
    case apiVerifyContact(contactId: Int64, connectionCode: String?)
    /// `/_verify code #<groupId> <groupMemberId>[ <code>]`.
    case apiVerifyGroupMember(groupId: Int64, groupMemberId: Int64, connectionCode: String?)
    /// `/_switch @<contactId>`: move our receiving queue of the contact's connection to a new one.
    case apiSwitchContact(contactId: Int64)
    /// `/_switch #<groupId> <groupMemberId>`.
    case apiSwitchGroupMember(groupId: Int64, groupMemberId: Int64)
    /// `/_abort switch @<contactId>`.
    case apiAbortSwitchContact(contactId: Int64)
    /// `/_abort switch #<groupId> <groupMemberId>`.
    case apiAbortSwitchGroupMember(groupId: Int64, groupMemberId: Int64)

    // MARK: servers
    /// `/smp` or `/xftp`: the active user's servers.
    case getUserProtoServers(ServerProtocol)
    /// `/smp <server>[ <server>...]` or `/smp default` (an empty list).
    case setUserProtoServers(ServerProtocol, servers: [String])
    /// `/_server test <userId> <server>`: connects, creates, secures and deletes a queue (APITestProtoServer).
    case apiTestProtoServer(userId: Int64, server: String)
    /// `/smp test <server>`, for the active user (TestProtoServer).
    case testProtoServer(server: String)
    /// `/_servers <userId>`.
    case apiGetUserServers(userId: Int64)
    /// `/_servers <userId> <json([UpdatedUserOperatorServers])>`, passed on as JSON.
    case apiSetUserServers(userId: Int64, servers: JSONValue)
    /// `/_network <json>` (APISetNetworkConfig): simplexmq's NetworkConfig as JSON.
    case apiSetNetworkConfig(config: JSONValue)
    /// `/network` (APIGetNetworkConfig).
    case apiGetNetworkConfig
    /// `/network socks=off ...` (SetNetworkConfig).
    case setNetworkConfig(SimpleNetCfg)
}

/// Which page of a chat's items to load (simplex-chat `ChatPagination`).
public enum ChatPagination: Sendable, Hashable {
    /// `count=<n>`: the latest items.
    case last(count: Int)
    /// `after=<itemId> count=<n>`.
    case after(chatItemId: Int64, count: Int)
    /// `before=<itemId> count=<n>`.
    case before(chatItemId: Int64, count: Int)
    /// `around=<itemId> count=<n>`.
    case around(chatItemId: Int64, count: Int)
    /// `initial=<n>`: around the first unread item.
    case initial(count: Int)

    public var commandString: String {
        switch self {
        case .last(let n): "count=\(n)"
        case .after(let id, let n): "after=\(id) count=\(n)"
        case .before(let id, let n): "before=\(id) count=\(n)"
        case .around(let id, let n): "around=\(id) count=\(n)"
        case .initial(let n): "initial=\(n)"
        }
    }
}

/// Which chat previews to load, by last activity (simplex-chat `PaginationByTime`).
public enum PaginationByTime: Sendable, Hashable {
    case last(count: Int)
    case after(ts: UTCTime, count: Int)
    case before(ts: UTCTime, count: Int)

    /// What `/_get chats` loads when no pagination is given.
    public static let defaultPagination = PaginationByTime.last(count: 5000)

    public var commandString: String {
        switch self {
        case .last(let n): "count=\(n)"
        case .after(let ts, let n): "after=\(ts.text) count=\(n)"
        case .before(let ts, let n): "before=\(ts.text) count=\(n)"
        }
    }
}

/// A filter for chat previews (simplex-chat `ChatListQuery`).
public enum ChatListQuery: Sendable, Hashable, Codable {
    case filters(favorite: Bool, unread: Bool)
    case search(search: String)

    /// No filter.
    public static let none = ChatListQuery.filters(favorite: false, unread: false)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "filters": self = try .filters(favorite: c.v("favorite", default: false), unread: c.v("unread", default: false))
        case "search": self = try .search(search: c.v("search"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown ChatListQuery \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .filters(let f, let u):
            try c.tag("filters")
            try c.put(f, "favorite")
            try c.put(u, "unread")
        case .search(let s):
            try c.tag("search")
            try c.put(s, "search")
        }
    }
}

/// How to delete a chat (TYPES.md ChatDeleteMode); syntax `full|entity|messages[ notify=off]`.
public enum ChatDeleteMode: Sendable, Hashable, Codable {
    /// The contact and its messages.
    case full(notify: Bool)
    /// The contact, keeping its messages.
    case entity(notify: Bool)
    /// Only the messages.
    case messages

    public var commandString: String {
        switch self {
        case .full(let n): "full" + (n ? "" : " notify=off")
        case .entity(let n): "entity" + (n ? "" : " notify=off")
        case .messages: "messages"
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "full": self = try .full(notify: c.v("notify", default: true))
        case "entity": self = try .entity(notify: c.v("notify", default: true))
        case "messages": self = .messages
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown ChatDeleteMode \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .full(let n):
            try c.tag("full")
            try c.put(n, "notify")
        case .entity(let n):
            try c.tag("entity")
            try c.put(n, "notify")
        case .messages: try c.tag("messages")
        }
    }
}

extension ChatCommand {
    /// The canonical text form (what the bot SDKs send); `parse(commandString)` gives the
    /// command back.
    public var commandString: String {
        func onOff(_ b: Bool) -> String { b ? "on" : "off" }
        func json<T: Encodable>(_ v: T) -> String { (try? ChatJSON.string(v)) ?? "null" }
        func ids(_ list: [Int64]) -> String { list.map(String.init).joined(separator: ",") }
        func ttlParam(_ t: Int?) -> String { t.map { " ttl=\($0)" } ?? "" }
        func pq(_ p: Bool?) -> String { p.map { " pq_ratchet=" + onOff($0) } ?? "" }
        switch self {
        case .showActiveUser: return "/user"
        case .createActiveUser(let u): return "/_create user " + json(u)
        case .listUsers: return "/users"
        case .apiSetActiveUser(let id, let pwd): return "/_user \(id)" + (pwd.map { " " + json($0) } ?? "")
        case .apiDeleteUser(let id, let del, let pwd):
            return "/_delete user \(id) del_smp=" + onOff(del) + (pwd.map { " " + json($0) } ?? "")
        case .apiUpdateProfile(let id, let p): return "/_profile \(id) " + json(p)
        case .apiSetContactPrefs(let id, let p): return "/_set prefs @\(id) " + json(p)
        case .apiSetContactAlias(let id, let a): return "/_set alias @\(id) \(a)"
        case .apiSetConnectionAlias(let id, let a): return "/_set alias :\(id) \(a)"
        case .apiSetContactCustomData(let id, let d): return "/_set custom @\(id)" + (d.map { " " + json($0) } ?? "")
        case .apiSetGroupCustomData(let id, let d): return "/_set custom #\(id)" + (d.map { " " + json($0) } ?? "")
        case .startChat(let main, let snd): return "/_start main=" + onOff(main) + (snd == main ? "" : " snd_files=" + onOff(snd))
        case .apiStopChat: return "/_stop"
        case .apiStorageEncryption(let cfg): return "/_db encryption " + json(cfg)
        case .testStorageEncryption(let key): return "/db test key " + key
        case .apiAddContact(let id, let inc): return "/_connect \(id)" + (inc ? " incognito=on" : "")
        case .apiConnectPlan(let id, let link): return "/_connect plan \(id) " + link
        case .apiConnect(let id, let inc, let link): return "/_connect \(id)" + (inc ? " incognito=on" : "") + " " + link.commandString
        case .addContact(let inc): return "/connect" + (inc ? " incognito" : "")
        case .connect(let inc, let link): return "/connect" + (inc ? " incognito" : "") + " " + link
        case .apiPrepareContact(let id, let link, let data): return "/_prepare contact \(id) " + link.commandString + " " + json(data)
        case .apiConnectPreparedContact(let id, let inc, let mc):
            return "/_connect contact @\(id)" + (inc ? " incognito=on" : "") + (mc.map { " json " + json($0) } ?? "")
        case .apiAcceptContact(let inc, let id): return "/_accept" + (inc ? " incognito=on" : "") + " \(id)"
        case .apiRejectContact(let id): return "/_reject \(id)"
        case .apiSetConnectionIncognito(let id, let inc): return "/_set incognito :\(id) " + onOff(inc)
        case .receiveFile(let id, let approved, let enc, let inline, let path):
            return "/freceive \(id)" + (approved ? " approved_relays=on" : "") + (enc.map { " encrypt=" + onOff($0) } ?? "")
                + (inline.map { " inline=" + onOff($0) } ?? "") + (path.map { " " + $0 } ?? "")
        case .cancelFile(let id): return "/fcancel \(id)"
        case .fileStatus(let id): return "/fstatus \(id)"
        case .setFilesFolder(let path): return "/_files_folder " + path
        case .apiSetEncryptLocalFiles(let on): return "/_files_encrypt " + onOff(on)
        case .apiCreateMyAddress(let id, let p): return "/_address \(id)" + pq(p)
        case .apiDeleteMyAddress(let id): return "/_delete_address \(id)"
        case .apiShowMyAddress(let id): return "/_show_address \(id)"
        case .createMyAddress: return "/address"
        case .deleteMyAddress: return "/delete_address"
        case .showMyAddress: return "/show_address"
        case .apiSetProfileAddress(let id, let on): return "/_profile_address \(id) " + onOff(on)
        case .apiSetAddressSettings(let id, let p, let s): return "/_address_settings \(id)" + pq(p) + " " + json(s)
        case .apiSendMessages(let ref, let live, let ttl, let msgs):
            return "/_send " + ref.commandString + (live ? " live=on" : "") + ttlParam(ttl) + " json " + json(msgs)
        case .apiUpdateChatItem(let ref, let itemId, let live, let msg):
            return "/_update item " + ref.commandString + " \(itemId)" + (live ? " live=on" : "") + " json " + json(msg)
        case .apiDeleteChatItem(let ref, let list, let mode):
            return "/_delete item " + ref.commandString + " " + ids(list) + " " + mode.rawValue
        case .apiChatItemReaction(let ref, let itemId, let add, let r):
            return "/_reaction " + ref.commandString + " \(itemId) " + onOff(add) + " " + json(r)
        case .apiPlanForwardChatItems(let ref, let list): return "/_forward plan " + ref.commandString + " " + ids(list)
        case .apiForwardChatItems(let to, let from, let list, let ttl):
            return "/_forward " + to.commandString + " " + from.commandString + " " + ids(list) + ttlParam(ttl)
        case .apiGetChats(let id, let pcc, let pg, let q):
            return "/_get chats \(id)" + (pcc ? " pcc=on" : "") + " " + pg.commandString + " " + json(q)
        case .apiGetChat(let ref, let tag, let pg, let search):
            return "/_get chat " + ref.commandString + (tag.map { " content=" + $0 } ?? "") + " " + pg.commandString
                + (search.map { " search=" + $0 } ?? "")
        case .apiChatRead(let ref): return "/_read chat " + ref.commandString
        case .apiChatItemsRead(let ref, let items): return "/_read chat items " + ref.commandString + " " + ids(items)
        case .apiListContacts(let id): return "/_contacts \(id)"
        case .apiDeleteChat(let ref, let mode): return "/_delete " + ref.commandString + " " + mode.commandString
        case .apiNewGroup(let id, let inc, let p): return "/_group \(id)" + (inc ? " incognito=on" : "") + " " + json(p)
        case .apiAddMember(let g, let c, let r): return "/_add #\(g) \(c) " + r.rawValue
        case .apiJoinGroup(let g): return "/_join #\(g)"
        case .apiCreateMemberContact(let g, let m): return "/_create member contact #\(g) \(m)"
        case .apiSendMemberContactInvitation(let c, let mc): return "/_invite member contact @\(c)" + (mc.map { " " + json($0) } ?? "")
        case .apiAcceptMemberContact(let c): return "/_accept member contact @\(c)"
        case .apiSetUserAutoAcceptMemberContacts(let u, let on): return "/_set accept member contacts \(u) " + onOff(on)
        case .apiListMembers(let g): return "/_members #\(g)"
        case .apiListGroups(let id, let c, let q): return "/_groups \(id)" + (c.map { " @\($0)" } ?? "") + (q.map { " " + $0 } ?? "")
        case .apiMembersRole(let g, let ms, let r): return "/_member role #\(g) " + ids(ms) + " " + r.rawValue
        case .apiAcceptMember(let g, let m, let r): return "/_accept member #\(g) \(m) " + r.rawValue
        case .apiDeleteMemberSupportChat(let g, let m): return "/_delete member chat #\(g) \(m)"
        case .apiBlockMembersForAll(let g, let ms, let b): return "/_block #\(g) " + ids(ms) + " blocked=" + onOff(b)
        case .apiSetMemberSettings(let g, let m, let st): return "/_member settings #\(g) \(m) " + json(st)
        case .apiRemoveMembers(let g, let ms, let w): return "/_remove #\(g) " + ids(ms) + (w ? " messages=on" : "")
        case .apiLeaveGroup(let g): return "/_leave #\(g)"
        case .apiUpdateGroupProfile(let g, let p): return "/_group_profile #\(g) " + json(p)
        case .apiCreateGroupLink(let g, let r): return "/_create link #\(g) " + r.rawValue
        case .apiGroupLinkMemberRole(let g, let r): return "/_set link role #\(g) " + r.rawValue
        case .apiDeleteGroupLink(let g): return "/_delete link #\(g)"
        case .apiGetGroupLink(let g): return "/_get link #\(g)"
        case .apiDeleteMemberChatItem(let g, let list): return "/_delete member item #\(g) " + ids(list)
        case .apiReportMessage(let g, let i, let r, let t): return "/_report #\(g) \(i) reason=" + r.rawValue + (t.isEmpty ? "" : " " + t)
        case .reportMessage(let g, let c, let r, let t):
            return "/report #" + Self.displayName(g) + (c.map { " @" + Self.displayName($0) } ?? "") + " " + r.rawValue + " " + t
        case .apiArchiveReceivedReports(let g): return "/_archive reports #\(g)"
        case .apiDeleteReceivedReports(let g, let list, let mode): return "/_delete reports #\(g) " + ids(list) + " " + mode.rawValue
        case .apiSyncContactRatchet(let id, let force): return "/_sync @\(id)" + (force ? " force=on" : "")
        case .apiSyncGroupMemberRatchet(let g, let m, let force): return "/_sync #\(g) \(m)" + (force ? " force=on" : "")
        case .apiGetContactCode(let id): return "/_get code @\(id)"
        case .apiGetGroupMemberCode(let g, let m): return "/_get code #\(g) \(m)"
        case .apiVerifyContact(let id, let code): return "/_verify code @\(id)" + (code.map { " " + $0 } ?? "")
        case .apiVerifyGroupMember(let g, let m, let code): return "/_verify code #\(g) \(m)" + (code.map { " " + $0 } ?? "")
        case .apiSwitchContact(let id): return "/_switch @\(id)"
        case .apiSwitchGroupMember(let g, let m): return "/_switch #\(g) \(m)"
        case .apiAbortSwitchContact(let id): return "/_abort switch @\(id)"
        case .apiAbortSwitchGroupMember(let g, let m): return "/_abort switch #\(g) \(m)"
        case .apiPrepareGroup(let id, let link, let data): return "/_prepare group \(id) " + link.commandString + " " + json(data)
        case .apiConnectPreparedGroup(let g, let inc, let mc):
            return "/_connect group #\(g)" + (inc ? " incognito=on" : "") + (mc.map { " json " + json($0) } ?? "")
        case .getUserProtoServers(let p): return "/" + p.rawValue
        case .setUserProtoServers(let p, let servers): return "/" + p.rawValue + " " + (servers.isEmpty ? "default" : servers.joined(separator: " "))
        case .apiTestProtoServer(let userId, let server): return "/_server test \(userId) \(server)"
        case .testProtoServer(let server): return "/smp test \(server)"
        case .apiGetUserServers(let id): return "/_servers \(id)"
        case .apiSetUserServers(let id, let s): return "/_servers \(id) " + json(s)
        case .apiSetNetworkConfig(let c): return "/_network " + json(c)
        case .apiGetNetworkConfig: return "/network"
        case .setNetworkConfig(let c): return "/network " + c.commandString
        }
    }
}

/// The keys of `/_db encryption` (simplex-chat `DBEncryptionConfig`): an empty key is a
/// plain (unencrypted) database.
public struct DBEncryptionConfig: Sendable, Hashable, Codable {
    public var currentKey: String
    public var newKey: String
    public var keepKey: Bool?

    public init(currentKey: String, newKey: String, keepKey: Bool? = nil) {
        self.currentKey = currentKey
        self.newKey = newKey
        self.keepKey = keepKey
    }
}
