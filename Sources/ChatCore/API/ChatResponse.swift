/// The answer to a command (COMMANDS.md responses); JSON `{"type": "<tag>", ...fields}`.
/// `chatCmdError` is the WebSockets form of a failed command; over the C API a failure is
/// `{"error": <ChatError>}` instead (see `APIResult`).
public enum ChatResponse: Sendable, Hashable, Codable {
    case activeUser(user: User)
    case usersList(users: [UserInfo])
    case chatStarted
    case chatRunning
    case chatStopped
    case apiChats(user: User, chats: [AChat])
    case apiChat(user: User, chat: AChat, navInfo: NavigationInfo?)
    case userServers(user: User, userServers: [UserOperatorServers])
    case serverTestResult(user: User, testServer: String, testFailure: ProtocolTestFailure?)
    case newChatItems(user: User, chatItems: [AChatItem])
    case chatItemUpdated(user: User, chatItem: AChatItem)
    case chatItemNotChanged(user: User, chatItem: AChatItem)
    case chatItemReaction(user: User, added: Bool, reaction: ACIReaction)
    case chatItemsDeleted(user: User, chatItemDeletions: [ChatItemDeletion], byUser: Bool, timed: Bool)
    /// Reports archived (marked deleted) without deleting them (simplex-chat CRGroupChatItemsDeleted).
    case groupChatItemsDeleted(user: User, groupInfo: GroupInfo, chatItemIDs: [Int64], byUser: Bool, member_: GroupMember?)
    case forwardPlan(user: User, itemsCount: Int, chatItemIds: [Int64], forwardConfirmation: ForwardConfirmation?)
    case cmdOk(user_: User?)
    /// CRNetworkConfig: simplexmq's NetworkConfig as JSON (`/network`).
    case networkConfig(networkConfig: JSONValue)
    case contactsList(user: User, contacts: [Contact])
    case userContactLink(user: User, contactLink: UserContactLink)
    case userContactLinkUpdated(user: User, contactLink: UserContactLink)
    case userContactLinkCreated(user: User, connLinkContact: CreatedConnLink)
    case userContactLinkDeleted(user: User)
    case contactRequestRejected(user: User, contactRequest: UserContactRequest, contact_: Contact?)
    case acceptingContactRequest(user: User, contact: Contact)
    case userProfileUpdated(user: User, fromProfile: Profile, toProfile: Profile, updateSummary: UserProfileUpdateSummary)
    case userProfileNoChange(user: User)
    case contactPrefsUpdated(user: User, fromContact: Contact, toContact: Contact)
    case contactAliasUpdated(user: User, toContact: Contact)
    case connectionAliasUpdated(user: User, toConnection: PendingContactConnection)
    case invitation(user: User, connLinkInvitation: CreatedConnLink, connection: PendingContactConnection)
    case connectionIncognitoUpdated(user: User, toConnection: PendingContactConnection, customUserProfile: Profile?)
    case connectionPlan(user: User, connLink: CreatedConnLink, connectionPlan: ConnectionPlan)
    case sentConfirmation(user: User, connection: PendingContactConnection, customUserProfile: Profile?)
    case sentInvitation(user: User, connection: PendingContactConnection, customUserProfile: Profile?)
    case contactAlreadyExists(user: User, contact: Contact)
    case newPreparedChat(user: User, chat: AChat)
    case startedConnectionToContact(user: User, contact: Contact, customUserProfile: Profile? = nil)
    case contactDeleted(user: User, contact: Contact)
    case contactConnectionDeleted(user: User, connection: PendingContactConnection)
    /// `/_delete #id messages`: the chat's items were deleted (simplex-chat CRChatCleared).
    case chatCleared(user: User, chatInfo: ChatInfo)
    case chatCmdError(chatError: ChatError)
    case groupCreated(user: User, groupInfo: GroupInfo)
    case sentGroupInvitation(user: User, groupInfo: GroupInfo, contact: Contact, member: GroupMember)
    /// `/_create member contact` (CRNewMemberContact).
    case newMemberContact(user: User, contact: Contact, groupInfo: GroupInfo, member: GroupMember)
    /// `/_invite member contact` (CRNewMemberContactSentInv).
    case newMemberContactSentInv(user: User, contact: Contact, groupInfo: GroupInfo, member: GroupMember)
    /// `/_accept member contact` (CRMemberContactAccepted).
    case memberContactAccepted(user: User, contact: Contact)
    case userAcceptedGroupSent(user: User, groupInfo: GroupInfo, hostContact: Contact?)
    case groupMembers(user: User, group: Group)
    case groupsList(user: User, groups: [GroupInfo])
    /// `msgSigned`: whether the group event we sent was signed (we sign none yet: `sign=on` is refused).
    case membersRoleUser(user: User, groupInfo: GroupInfo, members: [GroupMember], toRole: GroupMemberRole, msgSigned: Bool = false)
    case membersBlockedForAllUser(user: User, groupInfo: GroupInfo, members: [GroupMember], blocked: Bool, msgSigned: Bool = false)
    case userDeletedMembers(user: User, groupInfo: GroupInfo, members: [GroupMember], withMessages: Bool, msgSigned: Bool = false)
    case leftMemberUser(user: User, groupInfo: GroupInfo)
    /// `/_accept member`: the pending member is admitted (or moved on to review).
    case memberAccepted(user: User, groupInfo: GroupInfo, member: GroupMember)
    /// `/_read chat #g(_support:m)`: the member's support chat read, its counters cleared.
    case memberSupportChatRead(user: User, groupInfo: GroupInfo, member: GroupMember)
    /// `/_delete member chat #g m`: the member's support chat and its counters are gone.
    case memberSupportChatDeleted(user: User, groupInfo: GroupInfo, member: GroupMember)
    /// `/_read chat items`: the listed items read; the chat as it is after (simplex-chat CRItemsReadForChat).
    case itemsReadForChat(user: User, chatInfo: ChatInfo)
    /// `localDeletion`: only our copy was deleted (no x.grp.del was sent).
    case groupDeletedUser(user: User, groupInfo: GroupInfo, msgSigned: Bool = false, localDeletion: Bool)
    case groupUpdated(user: User, fromGroup: GroupInfo, toGroup: GroupInfo, member_: GroupMember?, msgSigned: Bool = false)
    case groupLinkCreated(user: User, groupInfo: GroupInfo, groupLink: GroupLink)
    case groupLink(user: User, groupInfo: GroupInfo, groupLink: GroupLink)
    case groupLinkDeleted(user: User, groupInfo: GroupInfo)
    case startedConnectionToGroup(user: User, groupInfo: GroupInfo, customUserProfile: Profile?)
    /// `/_sync @<contactId>` started a ratchet re-synchronization.
    case contactRatchetSyncStarted(user: User, contact: Contact, connectionStats: ConnectionStats)
    case groupMemberRatchetSyncStarted(user: User, groupInfo: GroupInfo, member: GroupMember, connectionStats: ConnectionStats)
    /// `/_get code`: the connection's current security code (simplex-chat `CRContactCode`).
    case contactCode(user: User, contact: Contact, connectionCode: String)
    case groupMemberCode(user: User, groupInfo: GroupInfo, member: GroupMember, connectionCode: String)
    /// `/_verify code`: whether the code given is the current one, and that code.
    case connectionVerified(user: User, verified: Bool, expectedCode: String)
    /// `/_switch` started moving our receiving queue; `/_abort switch` cancelled it.
    case contactSwitchStarted(user: User, contact: Contact, connectionStats: ConnectionStats)
    case groupMemberSwitchStarted(user: User, groupInfo: GroupInfo, member: GroupMember, connectionStats: ConnectionStats)
    case contactSwitchAborted(user: User, contact: Contact, connectionStats: ConnectionStats)
    case groupMemberSwitchAborted(user: User, groupInfo: GroupInfo, member: GroupMember, connectionStats: ConnectionStats)
    /// A file event (EVENTS.md "File events"), written as its own tag.
    case file(ChatFileResponse)
    /// A member of a newer version, kept raw.
    case unknown(JSONValue)


    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "activeUser": self = try .activeUser(user: c.v("user"))
        case "usersList": self = try .usersList(users: c.v("users"))
        case "chatStarted": self = .chatStarted
        case "chatRunning": self = .chatRunning
        case "chatStopped": self = .chatStopped
        case "apiChats": self = try .apiChats(user: c.v("user"), chats: c.v("chats"))
        case "apiChat": self = try .apiChat(user: c.v("user"), chat: c.v("chat"), navInfo: c.opt("navInfo"))
        case "userServers": self = try .userServers(user: c.v("user"), userServers: c.v("userServers"))
        case "serverTestResult": self = try .serverTestResult(user: c.v("user"), testServer: c.v("testServer"), testFailure: c.opt("testFailure"))
        case "newChatItems": self = try .newChatItems(user: c.v("user"), chatItems: c.v("chatItems"))
        case "chatItemUpdated": self = try .chatItemUpdated(user: c.v("user"), chatItem: c.v("chatItem"))
        case "chatItemNotChanged": self = try .chatItemNotChanged(user: c.v("user"), chatItem: c.v("chatItem"))
        case "chatItemReaction": self = try .chatItemReaction(user: c.v("user"), added: c.v("added"), reaction: c.v("reaction"))
        case "chatItemsDeleted": self = try .chatItemsDeleted(user: c.v("user"), chatItemDeletions: c.v("chatItemDeletions"), byUser: c.v("byUser"), timed: c.v("timed"))
        case "groupChatItemsDeleted":
            self = try .groupChatItemsDeleted(user: c.v("user"), groupInfo: c.v("groupInfo"), chatItemIDs: c.v("chatItemIDs"), byUser: c.v("byUser"), member_: c.opt("member_"))
        case "forwardPlan": self = try .forwardPlan(user: c.v("user"), itemsCount: c.v("itemsCount"), chatItemIds: c.v("chatItemIds"), forwardConfirmation: c.opt("forwardConfirmation"))
        case "cmdOk": self = try .cmdOk(user_: c.opt("user_"))
        case "networkConfig": self = try .networkConfig(networkConfig: c.v("networkConfig"))
        case "contactsList": self = try .contactsList(user: c.v("user"), contacts: c.v("contacts"))
        case "userContactLink": self = try .userContactLink(user: c.v("user"), contactLink: c.v("contactLink"))
        case "userContactLinkUpdated": self = try .userContactLinkUpdated(user: c.v("user"), contactLink: c.v("contactLink"))
        case "userContactLinkCreated": self = try .userContactLinkCreated(user: c.v("user"), connLinkContact: c.v("connLinkContact"))
        case "userContactLinkDeleted": self = try .userContactLinkDeleted(user: c.v("user"))
        case "contactRequestRejected": self = try .contactRequestRejected(user: c.v("user"), contactRequest: c.v("contactRequest"), contact_: c.opt("contact_"))
        case "acceptingContactRequest": self = try .acceptingContactRequest(user: c.v("user"), contact: c.v("contact"))
        case "userProfileUpdated": self = try .userProfileUpdated(user: c.v("user"), fromProfile: c.v("fromProfile"), toProfile: c.v("toProfile"), updateSummary: c.v("updateSummary"))
        case "userProfileNoChange": self = try .userProfileNoChange(user: c.v("user"))
        case "contactPrefsUpdated": self = try .contactPrefsUpdated(user: c.v("user"), fromContact: c.v("fromContact"), toContact: c.v("toContact"))
        case "contactAliasUpdated": self = try .contactAliasUpdated(user: c.v("user"), toContact: c.v("toContact"))
        case "connectionAliasUpdated": self = try .connectionAliasUpdated(user: c.v("user"), toConnection: c.v("toConnection"))
        case "invitation": self = try .invitation(user: c.v("user"), connLinkInvitation: c.v("connLinkInvitation"), connection: c.v("connection"))
        case "connectionIncognitoUpdated": self = try .connectionIncognitoUpdated(user: c.v("user"), toConnection: c.v("toConnection"), customUserProfile: c.opt("customUserProfile"))
        case "connectionPlan": self = try .connectionPlan(user: c.v("user"), connLink: c.v("connLink"), connectionPlan: c.v("connectionPlan"))
        case "sentConfirmation": self = try .sentConfirmation(user: c.v("user"), connection: c.v("connection"), customUserProfile: c.opt("customUserProfile"))
        case "sentInvitation": self = try .sentInvitation(user: c.v("user"), connection: c.v("connection"), customUserProfile: c.opt("customUserProfile"))
        case "contactAlreadyExists": self = try .contactAlreadyExists(user: c.v("user"), contact: c.v("contact"))
        case "newPreparedChat": self = try .newPreparedChat(user: c.v("user"), chat: c.v("chat"))
        case "startedConnectionToContact": self = try .startedConnectionToContact(user: c.v("user"), contact: c.v("contact"), customUserProfile: c.opt("customUserProfile"))
        case "contactDeleted": self = try .contactDeleted(user: c.v("user"), contact: c.v("contact"))
        case "chatCleared": self = try .chatCleared(user: c.v("user"), chatInfo: c.v("chatInfo"))
        case "contactConnectionDeleted": self = try .contactConnectionDeleted(user: c.v("user"), connection: c.v("connection"))
        case "chatCmdError": self = try .chatCmdError(chatError: c.v("chatError"))
        case "groupCreated": self = try .groupCreated(user: c.v("user"), groupInfo: c.v("groupInfo"))
        case "sentGroupInvitation": self = try .sentGroupInvitation(user: c.v("user"), groupInfo: c.v("groupInfo"), contact: c.v("contact"), member: c.v("member"))
        case "newMemberContact":
            self = try .newMemberContact(user: c.v("user"), contact: c.v("contact"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "newMemberContactSentInv":
            self = try .newMemberContactSentInv(user: c.v("user"), contact: c.v("contact"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "memberContactAccepted": self = try .memberContactAccepted(user: c.v("user"), contact: c.v("contact"))
        case "userAcceptedGroupSent": self = try .userAcceptedGroupSent(user: c.v("user"), groupInfo: c.v("groupInfo"), hostContact: c.opt("hostContact"))
        case "groupMembers": self = try .groupMembers(user: c.v("user"), group: c.v("group"))
        case "groupsList": self = try .groupsList(user: c.v("user"), groups: c.v("groups"))
        case "membersRoleUser": self = try .membersRoleUser(user: c.v("user"), groupInfo: c.v("groupInfo"), members: c.v("members"), toRole: c.v("toRole"), msgSigned: c.v("msgSigned", default: false))
        case "membersBlockedForAllUser": self = try .membersBlockedForAllUser(user: c.v("user"), groupInfo: c.v("groupInfo"), members: c.v("members"), blocked: c.v("blocked"), msgSigned: c.v("msgSigned", default: false))
        case "userDeletedMembers": self = try .userDeletedMembers(user: c.v("user"), groupInfo: c.v("groupInfo"), members: c.v("members"), withMessages: c.v("withMessages"), msgSigned: c.v("msgSigned", default: false))
        case "leftMemberUser": self = try .leftMemberUser(user: c.v("user"), groupInfo: c.v("groupInfo"))
        case "memberAccepted": self = try .memberAccepted(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "memberSupportChatRead": self = try .memberSupportChatRead(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "memberSupportChatDeleted": self = try .memberSupportChatDeleted(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "itemsReadForChat": self = try .itemsReadForChat(user: c.v("user"), chatInfo: c.v("chatInfo"))
        case "groupDeletedUser": self = try .groupDeletedUser(user: c.v("user"), groupInfo: c.v("groupInfo"), msgSigned: c.v("msgSigned", default: false), localDeletion: c.v("localDeletion", default: false))
        case "groupUpdated": self = try .groupUpdated(user: c.v("user"), fromGroup: c.v("fromGroup"), toGroup: c.v("toGroup"), member_: c.opt("member_"), msgSigned: c.v("msgSigned", default: false))
        case "groupLinkCreated": self = try .groupLinkCreated(user: c.v("user"), groupInfo: c.v("groupInfo"), groupLink: c.v("groupLink"))
        case "groupLink": self = try .groupLink(user: c.v("user"), groupInfo: c.v("groupInfo"), groupLink: c.v("groupLink"))
        case "groupLinkDeleted": self = try .groupLinkDeleted(user: c.v("user"), groupInfo: c.v("groupInfo"))
        case "startedConnectionToGroup": self = try .startedConnectionToGroup(user: c.v("user"), groupInfo: c.v("groupInfo"), customUserProfile: c.opt("customUserProfile"))
        case "contactRatchetSyncStarted":
            self = try .contactRatchetSyncStarted(user: c.v("user"), contact: c.v("contact"), connectionStats: c.v("connectionStats"))
        case "groupMemberRatchetSyncStarted":
            self = try .groupMemberRatchetSyncStarted(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"),
                                                      connectionStats: c.v("connectionStats"))
        case "contactCode": self = try .contactCode(user: c.v("user"), contact: c.v("contact"), connectionCode: c.v("connectionCode"))
        case "groupMemberCode":
            self = try .groupMemberCode(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"), connectionCode: c.v("connectionCode"))
        case "connectionVerified": self = try .connectionVerified(user: c.v("user"), verified: c.v("verified"), expectedCode: c.v("expectedCode"))
        case "contactSwitchStarted":
            self = try .contactSwitchStarted(user: c.v("user"), contact: c.v("contact"), connectionStats: c.v("connectionStats"))
        case "groupMemberSwitchStarted":
            self = try .groupMemberSwitchStarted(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"),
                                                 connectionStats: c.v("connectionStats"))
        case "contactSwitchAborted":
            self = try .contactSwitchAborted(user: c.v("user"), contact: c.v("contact"), connectionStats: c.v("connectionStats"))
        case "groupMemberSwitchAborted":
            self = try .groupMemberSwitchAborted(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"),
                                                 connectionStats: c.v("connectionStats"))
        case let t where ChatFileResponse.tags.contains(t): self = try .file(ChatFileResponse(from: decoder))
        default: self = try .unknown(rawJSON(decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let json) = self {
            try json.encode(to: encoder)
            return
        }
        if case .file(let f) = self {
            try f.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .activeUser(let user):
            try c.tag("activeUser")
            try c.put(user, "user")
        case .usersList(let users):
            try c.tag("usersList")
            try c.put(users, "users")
        case .chatStarted: try c.tag("chatStarted")
        case .chatRunning: try c.tag("chatRunning")
        case .chatStopped: try c.tag("chatStopped")
        case .apiChats(let user, let chats):
            try c.tag("apiChats")
            try c.put(user, "user")
            try c.put(chats, "chats")
        case .apiChat(let user, let chat, let navInfo):
            try c.tag("apiChat")
            try c.put(user, "user")
            try c.put(chat, "chat")
            try c.put(navInfo, "navInfo")
        case .userServers(let user, let userServers):
            try c.tag("userServers")
            try c.put(user, "user")
            try c.put(userServers, "userServers")
        case .serverTestResult(let user, let testServer, let testFailure):
            try c.tag("serverTestResult")
            try c.put(user, "user")
            try c.put(testServer, "testServer")
            try c.put(testFailure, "testFailure")
        case .newChatItems(let user, let chatItems):
            try c.tag("newChatItems")
            try c.put(user, "user")
            try c.put(chatItems, "chatItems")
        case .chatItemUpdated(let user, let chatItem):
            try c.tag("chatItemUpdated")
            try c.put(user, "user")
            try c.put(chatItem, "chatItem")
        case .chatItemNotChanged(let user, let chatItem):
            try c.tag("chatItemNotChanged")
            try c.put(user, "user")
            try c.put(chatItem, "chatItem")
        case .chatItemReaction(let user, let added, let reaction):
            try c.tag("chatItemReaction")
            try c.put(user, "user")
            try c.put(added, "added")
            try c.put(reaction, "reaction")
        case .chatItemsDeleted(let user, let chatItemDeletions, let byUser, let timed):
            try c.tag("chatItemsDeleted")
            try c.put(user, "user")
            try c.put(chatItemDeletions, "chatItemDeletions")
            try c.put(byUser, "byUser")
            try c.put(timed, "timed")
        case .groupChatItemsDeleted(let user, let groupInfo, let chatItemIDs, let byUser, let member_):
            try c.tag("groupChatItemsDeleted")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(chatItemIDs, "chatItemIDs")
            try c.put(byUser, "byUser")
            try c.put(member_, "member_")
        case .forwardPlan(let user, let itemsCount, let chatItemIds, let forwardConfirmation):
            try c.tag("forwardPlan")
            try c.put(user, "user")
            try c.put(itemsCount, "itemsCount")
            try c.put(chatItemIds, "chatItemIds")
            try c.put(forwardConfirmation, "forwardConfirmation")
        case .cmdOk(let user_):
            try c.tag("cmdOk")
            try c.put(user_, "user_")
        case .networkConfig(let cfg):
            try c.tag("networkConfig")
            try c.put(cfg, "networkConfig")
        case .contactsList(let user, let contacts):
            try c.tag("contactsList")
            try c.put(user, "user")
            try c.put(contacts, "contacts")
        case .userContactLink(let user, let contactLink):
            try c.tag("userContactLink")
            try c.put(user, "user")
            try c.put(contactLink, "contactLink")
        case .userContactLinkUpdated(let user, let contactLink):
            try c.tag("userContactLinkUpdated")
            try c.put(user, "user")
            try c.put(contactLink, "contactLink")
        case .userContactLinkCreated(let user, let connLinkContact):
            try c.tag("userContactLinkCreated")
            try c.put(user, "user")
            try c.put(connLinkContact, "connLinkContact")
        case .userContactLinkDeleted(let user):
            try c.tag("userContactLinkDeleted")
            try c.put(user, "user")
        case .contactRequestRejected(let user, let contactRequest, let contact_):
            try c.tag("contactRequestRejected")
            try c.put(user, "user")
            try c.put(contactRequest, "contactRequest")
            try c.put(contact_, "contact_")
        case .acceptingContactRequest(let user, let contact):
            try c.tag("acceptingContactRequest")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .userProfileUpdated(let user, let fromProfile, let toProfile, let updateSummary):
            try c.tag("userProfileUpdated")
            try c.put(user, "user")
            try c.put(fromProfile, "fromProfile")
            try c.put(toProfile, "toProfile")
            try c.put(updateSummary, "updateSummary")
        case .userProfileNoChange(let user):
            try c.tag("userProfileNoChange")
            try c.put(user, "user")
        case .contactPrefsUpdated(let user, let fromContact, let toContact):
            try c.tag("contactPrefsUpdated")
            try c.put(user, "user")
            try c.put(fromContact, "fromContact")
            try c.put(toContact, "toContact")
        case .contactAliasUpdated(let user, let toContact):
            try c.tag("contactAliasUpdated")
            try c.put(user, "user")
            try c.put(toContact, "toContact")
        case .connectionAliasUpdated(let user, let toConnection):
            try c.tag("connectionAliasUpdated")
            try c.put(user, "user")
            try c.put(toConnection, "toConnection")
        case .invitation(let user, let connLinkInvitation, let connection):
            try c.tag("invitation")
            try c.put(user, "user")
            try c.put(connLinkInvitation, "connLinkInvitation")
            try c.put(connection, "connection")
        case .connectionIncognitoUpdated(let user, let toConnection, let customUserProfile):
            try c.tag("connectionIncognitoUpdated")
            try c.put(user, "user")
            try c.put(toConnection, "toConnection")
            try c.put(customUserProfile, "customUserProfile")
        case .connectionPlan(let user, let connLink, let connectionPlan):
            try c.tag("connectionPlan")
            try c.put(user, "user")
            try c.put(connLink, "connLink")
            try c.put(connectionPlan, "connectionPlan")
        case .sentConfirmation(let user, let connection, let customUserProfile):
            try c.tag("sentConfirmation")
            try c.put(user, "user")
            try c.put(connection, "connection")
            try c.put(customUserProfile, "customUserProfile")
        case .sentInvitation(let user, let connection, let customUserProfile):
            try c.tag("sentInvitation")
            try c.put(user, "user")
            try c.put(connection, "connection")
            try c.put(customUserProfile, "customUserProfile")
        case .newPreparedChat(let user, let chat):
            try c.tag("newPreparedChat")
            try c.put(user, "user")
            try c.put(chat, "chat")
        case .startedConnectionToContact(let user, let contact, let customUserProfile):
            try c.tag("startedConnectionToContact")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(customUserProfile, "customUserProfile")
        case .contactAlreadyExists(let user, let contact):
            try c.tag("contactAlreadyExists")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .contactDeleted(let user, let contact):
            try c.tag("contactDeleted")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .contactConnectionDeleted(let user, let connection):
            try c.tag("contactConnectionDeleted")
            try c.put(user, "user")
            try c.put(connection, "connection")
        case .chatCleared(let user, let chatInfo):
            try c.tag("chatCleared")
            try c.put(user, "user")
            try c.put(chatInfo, "chatInfo")
        case .chatCmdError(let chatError):
            try c.tag("chatCmdError")
            try c.put(chatError, "chatError")
        case .groupCreated(let user, let groupInfo):
            try c.tag("groupCreated")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
        case .newMemberContact(let user, let contact, let groupInfo, let member):
            try c.tag("newMemberContact")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .newMemberContactSentInv(let user, let contact, let groupInfo, let member):
            try c.tag("newMemberContactSentInv")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .memberContactAccepted(let user, let contact):
            try c.tag("memberContactAccepted")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .sentGroupInvitation(let user, let groupInfo, let contact, let member):
            try c.tag("sentGroupInvitation")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(contact, "contact")
            try c.put(member, "member")
        case .userAcceptedGroupSent(let user, let groupInfo, let hostContact):
            try c.tag("userAcceptedGroupSent")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(hostContact, "hostContact")
        case .groupMembers(let user, let group):
            try c.tag("groupMembers")
            try c.put(user, "user")
            try c.put(group, "group")
        case .groupsList(let user, let groups):
            try c.tag("groupsList")
            try c.put(user, "user")
            try c.put(groups, "groups")
        case .membersRoleUser(let user, let groupInfo, let members, let toRole, let msgSigned):
            try c.tag("membersRoleUser")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(members, "members")
            try c.put(toRole, "toRole")
            try c.put(msgSigned, "msgSigned")
        case .membersBlockedForAllUser(let user, let groupInfo, let members, let blocked, let msgSigned):
            try c.tag("membersBlockedForAllUser")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(members, "members")
            try c.put(blocked, "blocked")
            try c.put(msgSigned, "msgSigned")
        case .userDeletedMembers(let user, let groupInfo, let members, let withMessages, let msgSigned):
            try c.tag("userDeletedMembers")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(members, "members")
            try c.put(withMessages, "withMessages")
            try c.put(msgSigned, "msgSigned")
        case .memberAccepted(let user, let groupInfo, let member):
            try c.tag("memberAccepted")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .memberSupportChatRead(let user, let groupInfo, let member):
            try c.tag("memberSupportChatRead")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .memberSupportChatDeleted(let user, let groupInfo, let member):
            try c.tag("memberSupportChatDeleted")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .itemsReadForChat(let user, let chatInfo):
            try c.tag("itemsReadForChat")
            try c.put(user, "user")
            try c.put(chatInfo, "chatInfo")
        case .leftMemberUser(let user, let groupInfo):
            try c.tag("leftMemberUser")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
        case .groupDeletedUser(let user, let groupInfo, let msgSigned, let localDeletion):
            try c.tag("groupDeletedUser")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(msgSigned, "msgSigned")
            try c.put(localDeletion, "localDeletion")
        case .groupUpdated(let user, let fromGroup, let toGroup, let member_, let msgSigned):
            try c.tag("groupUpdated")
            try c.put(user, "user")
            try c.put(fromGroup, "fromGroup")
            try c.put(toGroup, "toGroup")
            try c.put(member_, "member_")
            try c.put(msgSigned, "msgSigned")
        case .groupLinkCreated(let user, let groupInfo, let groupLink):
            try c.tag("groupLinkCreated")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(groupLink, "groupLink")
        case .groupLink(let user, let groupInfo, let groupLink):
            try c.tag("groupLink")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(groupLink, "groupLink")
        case .groupLinkDeleted(let user, let groupInfo):
            try c.tag("groupLinkDeleted")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
        case .startedConnectionToGroup(let user, let groupInfo, let customUserProfile):
            try c.tag("startedConnectionToGroup")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(customUserProfile, "customUserProfile")
        case .contactRatchetSyncStarted(let user, let contact, let stats):
            try c.tag("contactRatchetSyncStarted")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(stats, "connectionStats")
        case .groupMemberRatchetSyncStarted(let user, let groupInfo, let member, let stats):
            try c.tag("groupMemberRatchetSyncStarted")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(stats, "connectionStats")
        case .contactCode(let user, let contact, let code):
            try c.tag("contactCode")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(code, "connectionCode")
        case .groupMemberCode(let user, let groupInfo, let member, let code):
            try c.tag("groupMemberCode")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(code, "connectionCode")
        case .connectionVerified(let user, let verified, let code):
            try c.tag("connectionVerified")
            try c.put(user, "user")
            try c.put(verified, "verified")
            try c.put(code, "expectedCode")
        case .contactSwitchStarted(let user, let contact, let stats), .contactSwitchAborted(let user, let contact, let stats):
            if case .contactSwitchStarted = self { try c.tag("contactSwitchStarted") } else { try c.tag("contactSwitchAborted") }
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(stats, "connectionStats")
        case .groupMemberSwitchStarted(let user, let groupInfo, let member, let stats),
            .groupMemberSwitchAborted(let user, let groupInfo, let member, let stats):
            if case .groupMemberSwitchStarted = self { try c.tag("groupMemberSwitchStarted") } else { try c.tag("groupMemberSwitchAborted") }
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(stats, "connectionStats")
        case .unknown: break
        case .unknown, .file: break
        }
    }
}
