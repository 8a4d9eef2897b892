import Foundation
import Testing

@testable import ChatCore

/// The command syntax of COMMANDS.md (and simplex-chat's parser for the commands it leaves out).
@Suite struct ChatCommandTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let command: ChatCommand
        init(_ text: String, _ command: ChatCommand) {
            self.text = text
            self.command = command
        }
        var testDescription: String { text }
    }

    static let hello = ComposedMessage(msgContent: .text("hello"))
    static let link = "https://simplex.chat/invitation#/?v=2-7&smp=smp%3A%2F%2Fa%40b%2Fc%23%2F%3Fv%3D1-3%26dh%3Dx&e2e=v%3D2-3"

    static let valid: [Case] = [
        Case("/user", .showActiveUser),
        Case("/u", .showActiveUser),
        Case("/users", .listUsers),
        // The active user's address, as bot clients send it over the WebSocket API.
        Case("/address", .createMyAddress),
        Case("/ad", .createMyAddress),
        Case("/show_address", .showMyAddress),
        Case("/sa", .showMyAddress),
        Case("/delete_address", .deleteMyAddress),
        Case("/da", .deleteMyAddress),
        Case("/smp test smp://a@b", .testProtoServer(server: "smp://a@b")),
        Case("/_server test 1 smp://a@b:5223", .apiTestProtoServer(userId: 1, server: "smp://a@b:5223")),
        Case(#"/_create user {"profile":{"displayName":"bot","fullName":""},"pastTimestamp":false}"#,
             .createActiveUser(NewUser(profile: Profile(displayName: "bot")))),
        Case(#"/_create user {"profile":{"displayName":"bot"}}"#, .createActiveUser(NewUser(profile: Profile(displayName: "bot")))),
        Case("/_user 2", .apiSetActiveUser(userId: 2, viewPwd: nil)),
        Case(#"/_user 2 "secret""#, .apiSetActiveUser(userId: 2, viewPwd: "secret")),
        Case("/_delete user 3 del_smp=on", .apiDeleteUser(userId: 3, delSMPQueues: true, viewPwd: nil)),
        Case(#"/_delete user 3 del_smp=off "pw""#, .apiDeleteUser(userId: 3, delSMPQueues: false, viewPwd: "pw")),
        Case(#"/_profile 1 {"displayName":"alice","fullName":"Alice"}"#, .apiUpdateProfile(userId: 1, profile: Profile(displayName: "alice", fullName: "Alice"))),
        Case(#"/_set prefs @4 {"voice":{"allow":"no"}}"#, .apiSetContactPrefs(contactId: 4, preferences: Preferences(voice: SimplePreference(allow: .no)))),
        Case("/_start", .startChat(mainApp: true, enableSndFiles: true)),
        Case("/_start main=on", .startChat(mainApp: true, enableSndFiles: true)),
        Case("/_start main=off snd_files=on", .startChat(mainApp: false, enableSndFiles: true)),
        Case("/_stop", .apiStopChat),
        Case("/_connect 1", .apiAddContact(userId: 1, incognito: false)),
        Case("/_connect 1 incognito=on", .apiAddContact(userId: 1, incognito: true)),
        Case("/_connect 1 incognito=off", .apiAddContact(userId: 1, incognito: false)),
        Case("/_connect plan 1 \(link)", .apiConnectPlan(userId: 1, connectionLink: link)),
        Case("/_connect 1 \(link)", .apiConnect(userId: 1, incognito: false, connLink: CreatedConnLink(connFullLink: link))),
        Case("/_connect 1 incognito=on \(link) https://smp.example.com/i#abc/def",
             .apiConnect(userId: 1, incognito: true, connLink: CreatedConnLink(connFullLink: link, connShortLink: "https://smp.example.com/i#abc/def"))),
        Case("/connect", .addContact(incognito: false)),
        Case("/connect incognito", .addContact(incognito: true)),
        Case("/connect \(link)", .connect(incognito: false, connLink: link)),
        Case("/c i \(link)", .connect(incognito: true, connLink: link)),
        Case("/_accept 5", .apiAcceptContact(incognito: false, contactReqId: 5)),
        Case("/_accept incognito=on 5", .apiAcceptContact(incognito: true, contactReqId: 5)),
        Case("/_reject 6", .apiRejectContact(contactReqId: 6)),
        Case("/_set incognito :7 on", .apiSetConnectionIncognito(connId: 7, incognito: true)),
        Case("/_set incognito :7 off", .apiSetConnectionIncognito(connId: 7, incognito: false)),
        Case("/_address 1", .apiCreateMyAddress(userId: 1, pqRatchet: nil)),
        Case("/_address 1 pq_ratchet=on", .apiCreateMyAddress(userId: 1, pqRatchet: true)),
        Case("/_delete_address 1", .apiDeleteMyAddress(userId: 1)),
        Case("/_show_address 1", .apiShowMyAddress(userId: 1)),
        Case("/_profile_address 1 on", .apiSetProfileAddress(userId: 1, enable: true)),
        Case(#"/_address_settings 1 {"businessAddress":false,"autoAccept":{"acceptIncognito":false},"autoReply":{"type":"text","text":"Hi!"}}"#,
             .apiSetAddressSettings(userId: 1, pqRatchet: nil, settings: AddressSettings(autoAccept: AutoAccept(), autoReply: .text("Hi!")))),
        Case(#"/_send @2 json [{"msgContent":{"type":"text","text":"hello"}}]"#,
             .apiSendMessages(sendRef: .direct(2), liveMessage: false, ttl: nil, composedMessages: [hello])),
        Case(#"/_send #3 live=on ttl=30 json [{"msgContent":{"type":"text","text":"hello"},"mentions":{}}]"#,
             .apiSendMessages(sendRef: .group(3), liveMessage: true, ttl: 30, composedMessages: [hello])),
        Case(#"/_send #3(_support:9) ttl=default json [{"quotedItemId":5,"msgContent":{"type":"text","text":"hello"}}]"#,
             .apiSendMessages(sendRef: .group(3, scope: .memberSupport(groupMemberId_: 9)), liveMessage: false, ttl: nil,
                              composedMessages: [ComposedMessage(quotedItemId: 5, msgContent: .text("hello"))])),
        Case("/_send @2 text hello", .apiSendMessages(sendRef: .direct(2), liveMessage: false, ttl: nil, composedMessages: [hello])),
        Case(#"/_update item @2 15 json {"msgContent":{"type":"text","text":"edited"}}"#,
             .apiUpdateChatItem(chatRef: .direct(2), chatItemId: 15, liveMessage: false, updatedMessage: UpdatedMessage(msgContent: .text("edited")))),
        Case(#"/_update item #3 15 live=on json {"msgContent":{"type":"text","text":"edited"},"mentions":{"bob":7}}"#,
             .apiUpdateChatItem(chatRef: .group(3), chatItemId: 15, liveMessage: true,
                                updatedMessage: UpdatedMessage(msgContent: .text("edited"), mentions: ["bob": 7]))),
        Case("/_delete item @2 15 broadcast", .apiDeleteChatItem(chatRef: .direct(2), chatItemIds: [15], deleteMode: .broadcast)),
        Case("/_delete item #3 15,16,17 internal", .apiDeleteChatItem(chatRef: .group(3), chatItemIds: [15, 16, 17], deleteMode: .internal)),
        Case("/_delete item *1 4 internalMark", .apiDeleteChatItem(chatRef: .local(1), chatItemIds: [4], deleteMode: .internalMark)),
        Case(#"/_reaction @2 15 on {"type":"emoji","emoji":"👍"}"#, .apiChatItemReaction(chatRef: .direct(2), chatItemId: 15, add: true, reaction: .emoji("👍"))),
        Case(#"/_reaction #3 15 off {"type":"emoji","emoji":"🚀"}"#, .apiChatItemReaction(chatRef: .group(3), chatItemId: 15, add: false, reaction: .emoji("🚀"))),
        Case("/_forward plan @2 10,11", .apiPlanForwardChatItems(fromChatRef: .direct(2), chatItemIds: [10, 11])),
        Case("/_forward #3 @2 10", .apiForwardChatItems(toChatRef: .group(3), fromChatRef: .direct(2), chatItemIds: [10], ttl: nil)),
        Case("/_forward @4 @2 10,12 ttl=60", .apiForwardChatItems(toChatRef: .direct(4), fromChatRef: .direct(2), chatItemIds: [10, 12], ttl: 60)),
        Case("/_get chats 1", .apiGetChats(userId: 1, pendingConnections: false, pagination: .last(count: 5000), query: .none)),
        Case("/_get chats 1 pcc=on count=20", .apiGetChats(userId: 1, pendingConnections: true, pagination: .last(count: 20), query: .none)),
        Case(#"/_get chats 1 pcc=off before=2024-05-01T10:00:00Z count=10 {"type":"search","search":"bob"}"#,
             .apiGetChats(userId: 1, pendingConnections: false, pagination: .before(ts: UTCTime("2024-05-01T10:00:00Z")!, count: 10), query: .search(search: "bob"))),
        Case(#"/_get chats 1 {"type":"filters","favorite":true,"unread":false}"#,
             .apiGetChats(userId: 1, pendingConnections: false, pagination: .last(count: 5000), query: .filters(favorite: true, unread: false))),
        Case("/_get chat @2 count=20", .apiGetChat(chatRef: .direct(2), contentTag: nil, pagination: .last(count: 20), search: nil)),
        Case("/_get chat #3 after=100 count=50", .apiGetChat(chatRef: .group(3), contentTag: nil, pagination: .after(chatItemId: 100, count: 50), search: nil)),
        Case("/_get chat @2 before=100 count=50 search=hello world", .apiGetChat(chatRef: .direct(2), contentTag: nil, pagination: .before(chatItemId: 100, count: 50), search: "hello world")),
        Case("/_get chat @2 content=image around=7 count=5", .apiGetChat(chatRef: .direct(2), contentTag: "image", pagination: .around(chatItemId: 7, count: 5), search: nil)),
        Case("/_get chat *1 initial=30", .apiGetChat(chatRef: .local(1), contentTag: nil, pagination: .initial(count: 30), search: nil)),
        Case("/_read chat @2", .apiChatRead(chatRef: .direct(2))),
        Case("/_read chat items #3(_support:7) 10,11", .apiChatItemsRead(chatRef: .group(3, scope: .memberSupport(groupMemberId_: 7)), chatItemIds: [10, 11])),
        Case("/_read chat items @2 5", .apiChatItemsRead(chatRef: .direct(2), chatItemIds: [5])),
        Case("/_delete member chat #3 7", .apiDeleteMemberSupportChat(groupId: 3, groupMemberId: 7)),
        Case("/_read chat #3(_support)", .apiChatRead(chatRef: .group(3, scope: .memberSupport(groupMemberId_: nil)))),
        Case("/_contacts 1", .apiListContacts(userId: 1)),
        Case("/_delete @2", .apiDeleteChat(chatRef: .direct(2), chatDeleteMode: .full(notify: true))),
        Case("/_delete @2 full notify=off", .apiDeleteChat(chatRef: .direct(2), chatDeleteMode: .full(notify: false))),
        Case("/_delete @2 entity", .apiDeleteChat(chatRef: .direct(2), chatDeleteMode: .entity(notify: true))),
        Case("/_delete @2 messages", .apiDeleteChat(chatRef: .direct(2), chatDeleteMode: .messages)),
        Case("/_delete :5", .apiDeleteChat(chatRef: .contactConnection(5), chatDeleteMode: .full(notify: true))),
        Case(#"/_delete @2 {"type":"entity","notify":false}"#, .apiDeleteChat(chatRef: .direct(2), chatDeleteMode: .entity(notify: false))),
        Case("/smp", .getUserProtoServers(.smp)),
        Case("/xftp", .getUserProtoServers(.xftp)),
        Case("/smp default", .setUserProtoServers(.smp, servers: [])),
        Case("/smp smp://a@smp1.example.com smp://b:pw@smp2.example.com:5223",
             .setUserProtoServers(.smp, servers: ["smp://a@smp1.example.com", "smp://b:pw@smp2.example.com:5223"])),
        Case("/_servers 1", .apiGetUserServers(userId: 1)),
        Case(#"/_servers 1 [{"smpServers":[],"xftpServers":[]}]"#,
             .apiSetUserServers(userId: 1, servers: .array([.object(["smpServers": .array([]), "xftpServers": .array([])])]))),
        Case(#"/_network {"smpProxyMode":"always","smpProxyFallback":"allow"}"#,
             .apiSetNetworkConfig(config: .object(["smpProxyMode": .string("always"), "smpProxyFallback": .string("allow")]))),
        Case("/network", .apiGetNetworkConfig),
        Case("/network socks=off smp-proxy=always smp-proxy-fallback=no timeout=20", .setNetworkConfig({
            var c = SimpleNetCfg()
            c.smpProxyMode = .always
            c.smpProxyFallback = .prohibit
            c.tcpTimeout = 20
            return c
        }())),
        Case("/network socks=off host-mode=onion required-host-mode smp-web-port log=on", .setNetworkConfig({
            var c = SimpleNetCfg()
            c.hostMode = "onionViaSocks"
            c.requiredHostMode = true
            c.smpWebPortServers = "all"
            c.logTLSErrors = true
            return c
        }())),
        Case("/_stop   ", .apiStopChat),
        Case("/_contacts 1\n", .apiListContacts(userId: 1)),
        Case(#"/_group 1 {"displayName":"team","fullName":""}"#, .apiNewGroup(userId: 1, incognito: false, groupProfile: GroupProfile(displayName: "team"))),
        Case(#"/_group 1 incognito=on {"displayName":"team"}"#, .apiNewGroup(userId: 1, incognito: true, groupProfile: GroupProfile(displayName: "team"))),
        Case("/_add #3 7 admin", .apiAddMember(groupId: 3, contactId: 7, memberRole: .admin)),
        Case("/_join #3", .apiJoinGroup(groupId: 3)),
        Case("/_members #3", .apiListMembers(groupId: 3)),
        Case("/_groups 1", .apiListGroups(userId: 1, contactId: nil, search: nil)),
        Case("/_groups 1 @4 tea", .apiListGroups(userId: 1, contactId: 4, search: "tea")),
        Case("/_member role #3 5,6 observer", .apiMembersRole(groupId: 3, groupMemberIds: [5, 6], memberRole: .observer)),
        Case("/_accept member #3 7 member", .apiAcceptMember(groupId: 3, groupMemberId: 7, memberRole: .member)),
        Case("/_create member contact #3 7", .apiCreateMemberContact(groupId: 3, groupMemberId: 7)),
        Case("/_invite member contact @5", .apiSendMemberContactInvitation(contactId: 5, msgContent: nil)),
        Case(#"/_invite member contact @5 {"type":"text","text":"hi"}"#, .apiSendMemberContactInvitation(contactId: 5, msgContent: .text("hi"))),
        Case("/_accept member contact @5", .apiAcceptMemberContact(contactId: 5)),
        Case("/_set accept member contacts 1 on", .apiSetUserAutoAcceptMemberContacts(userId: 1, onOff: true)),
        Case("/_block #3 5 blocked=on", .apiBlockMembersForAll(groupId: 3, groupMemberIds: [5], blocked: true)),
        Case(#"/_member settings #3 5 {"showMessages":false}"#, .apiSetMemberSettings(groupId: 3, groupMemberId: 5, memberSettings: GroupMemberSettings(showMessages: false))),
        Case("/_remove #3 5", .apiRemoveMembers(groupId: 3, groupMemberIds: [5], withMessages: false)),
        Case("/_remove #3 5,6 messages=on", .apiRemoveMembers(groupId: 3, groupMemberIds: [5, 6], withMessages: true)),
        Case("/_leave #3", .apiLeaveGroup(groupId: 3)),
        Case(#"/_group_profile #3 {"displayName":"team2"}"#, .apiUpdateGroupProfile(groupId: 3, groupProfile: GroupProfile(displayName: "team2"))),
        Case("/_create link #3", .apiCreateGroupLink(groupId: 3, memberRole: .member)),
        Case("/_create link #3 observer", .apiCreateGroupLink(groupId: 3, memberRole: .observer)),
        Case("/_set link role #3 member", .apiGroupLinkMemberRole(groupId: 3, memberRole: .member)),
        Case("/_delete link #3", .apiDeleteGroupLink(groupId: 3)),
        Case("/_get link #3", .apiGetGroupLink(groupId: 3)),
        Case("/_delete member item #3 10,11", .apiDeleteMemberChatItem(groupId: 3, chatItemIds: [10, 11])),
        Case("/_report #3 10 reason=spam", .apiReportMessage(groupId: 3, chatItemId: 10, reportReason: .spam, reportText: "")),
        Case("/_report #3 10 reason=other it is rude", .apiReportMessage(groupId: 3, chatItemId: 10, reportReason: .other, reportText: "it is rude")),
        Case("/report #club spam cheap pills", .reportMessage(groupName: "club", contactName: nil, reportReason: .spam, reportedMessage: "cheap pills")),
        Case("/report #'the club' @'bad guy' profile hello there", .reportMessage(groupName: "the club", contactName: "bad guy", reportReason: .profile, reportedMessage: "hello there")),
        Case("/report #club @carol content pills", .reportMessage(groupName: "club", contactName: "carol", reportReason: .content, reportedMessage: "pills")),
        Case("/_archive reports #3", .apiArchiveReceivedReports(groupId: 3)),
        Case("/_delete reports #3 10,11 broadcast", .apiDeleteReceivedReports(groupId: 3, chatItemIds: [10, 11], deleteMode: .broadcast)),
        Case("/_delete reports #3 12 internalMark", .apiDeleteReceivedReports(groupId: 3, chatItemIds: [12], deleteMode: .internalMark)),
        Case("/_delete #3", .apiDeleteChat(chatRef: .group(3), chatDeleteMode: .full(notify: true))),
        Case(#"/_prepare group 1 \#(link) {"groupProfile":{"displayName":"club"}}"#,
             .apiPrepareGroup(userId: 1, connLink: CreatedConnLink(connFullLink: link), groupShortLinkData: GroupShortLinkData(groupProfile: GroupProfile(displayName: "club")))),
        Case("/_connect group #4 incognito=on", .apiConnectPreparedGroup(groupId: 4, incognito: true, msgContent: nil)),
    ]

    @Test(arguments: valid)
    func parses(_ c: Case) {
        #expect(ChatCommand.parse(c.text) == .success(c.command))
    }

    /// The canonical text of every command parses back to it.
    @Test(arguments: valid)
    func commandStringRoundTrips(_ c: Case) {
        #expect(ChatCommand.parse(c.command.commandString) == .success(c.command), "\(c.command.commandString)")
    }

    static let malformed: [String] = [
        "",
        "hello",
        "/",
        "/unknown",
        "/_frobnicate 1",
        "/userss",
        "/_user",
        "/_user x",
        "/_user 1 notjson",
        "/_user 99999999999999999999",
        "/_delete user 3",
        "/_delete user 3 del_smp=maybe",
        "/_create user",
        "/_create user {not json}",
        "/_create user {\"profile\":{\"fullName\":\"no display name\"}}",
        "/_profile 1",
        "/_profile one {}",
        "/_start main=yes",
        "/_stop now",
        "/_connect",
        "/_connect x",
        "/_connect 1 incognito=maybe",
        "/_connect plan 1",
        "/_accept",
        "/_accept incognito=on",
        "/_reject -1",
        "/_set incognito 7 on",
        "/_set incognito :7 yes",
        "/_send 2 json []",
        "/_send :2 json [{\"msgContent\":{\"type\":\"text\",\"text\":\"x\"}}]",
        "/_send @2 json []",
        "/_send @2 json [{\"msgContent\":{}}]",
        "/_send @2 live=maybe json []",
        "/_send @2",
        "/_send #3(_support json []",
        "/_update item @2 json {}",
        "/_update item @2 15 {\"msgContent\":{\"type\":\"text\",\"text\":\"x\"}}",
        "/_delete item @2 15",
        "/_delete item @2 15 everywhere",
        "/_delete item @2 15, broadcast",
        "/_delete item @2 ,15 broadcast",
        "/_reaction @2 15 on {\"type\":\"emoji\",\"emoji\":\"🤡\"}",
        "/_reaction @2 15 maybe {\"type\":\"emoji\",\"emoji\":\"👍\"}",
        "/_reaction @2 15 on",
        "/_forward plan @2",
        "/_forward @2 10",
        "/_get chats",
        "/_get chats 1 count=",
        "/_get chats 1 before=yesterday count=5",
        "/_get chat @2",
        "/_get chat @2 after=5",
        "/_get chat @2 count=x",
        "/_read chat 2",
        "/_contacts me",
        "/_delete @2 everything",
        "/_address_settings 1 {\"autoAccept\":5}",
        "/_profile_address 1 yes",
        "/smp ftp://a@b",
        "/smp smp://nohost",
        "/_servers 1 {bad",
        "/_group 1",
        "/_group x {}",
        "/_group 1 {\"fullName\":\"no name\"}",
        "/_add #3 7",
        "/_add #3 7 king",
        "/_add 3 7 member",
        "/_join 3",
        "/_join #",
        "/_members #x",
        "/_member role #3 5",
        "/_member role #3 admin",
        "/_block #3 5",
        "/_block #3 5 blocked=maybe",
        "/_member settings #3 5 {bad}",
        "/_remove #3",
        "/_remove #3 5 messages=yes",
        "/_leave #3 now",
        "/_group_profile #3",
        "/_create link #3 boss",
        "/_set link role #3",
        "/_delete member item #3",
    ]

    @Test(arguments: malformed)
    func malformedGivesCommandError(_ text: String) {
        switch ChatCommand.parse(text) {
        case .success(let c): Issue.record("parsed \(text.debugDescription) as \(c)")
        case .failure(let e):
            guard case .error(.commandError(let message)) = e else {
                Issue.record("unexpected error \(e)")
                return
            }
            #expect(!message.isEmpty)
        }
    }

    @Test func throwingInitializer() throws {
        #expect(try ChatCommand(parsing: "/users") == .listUsers)
        #expect(throws: ChatError.self) { try ChatCommand(parsing: "/nope") }
    }

    @Test func errorMessagesNameTheProblem() {
        guard case .failure(.error(.commandError(let m))) = ChatCommand.parse("/_delete item @2 15 everywhere") else {
            Issue.record("expected a command error")
            return
        }
        #expect(m.contains("broadcast|internal|internalMark"))
        guard case .failure(.error(.commandError(let u))) = ChatCommand.parse("/frobnicate 1 2") else {
            Issue.record("expected a command error")
            return
        }
        #expect(u == "unknown command /frobnicate")
    }

    @Test func hostileInputDoesNotTrap() {
        let inputs = [
            String(repeating: "/_send @", count: 1000),
            "/_send @2 json " + String(repeating: "[", count: 10_000),
            "/_delete item @2 " + String(repeating: "1,", count: 5000) + "1 broadcast",
            "/_get chat @2 count=999999999999999999999999",
            "/_user 1 \"\u{0}\"",
        ]
        for s in inputs { _ = ChatCommand.parse(s) }
    }
}
