/// An event the core sends without a command (EVENTS.md); JSON `{"type": "<tag>", ...fields}`.
public enum ChatEvent: Sendable, Hashable, Codable {
    case contactConnected(user: User, contact: Contact, userCustomProfile: Profile?)
    case contactSndReady(user: User, contact: Contact)
    case contactConnecting(user: User, contact: Contact)
    case acceptingContactRequest(user: User, contact: Contact)
    /// A request to our business address became a business chat (chat version 10).
    case acceptingBusinessRequest(user: User, groupInfo: GroupInfo)
    case receivedContactRequest(user: User, contactRequest: UserContactRequest, chat_: AChat?)
    case contactUpdated(user: User, fromContact: Contact, toContact: Contact)
    case contactDeletedByContact(user: User, contact: Contact)
    case newChatItems(user: User, chatItems: [AChatItem])
    case chatItemUpdated(user: User, chatItem: AChatItem)
    case chatItemNotChanged(user: User, chatItem: AChatItem)
    case chatItemsDeleted(user: User, chatItemDeletions: [ChatItemDeletion], byUser: Bool, timed: Bool)
    /// Reports archived when a moderator deletes the reported message (CEvtGroupChatItemsDeleted).
    case groupChatItemsDeleted(user: User, groupInfo: GroupInfo, chatItemIDs: [Int64], byUser: Bool, member_: GroupMember?)
    case chatItemReaction(user: User, added: Bool, reaction: ACIReaction)
    case chatItemsStatusesUpdated(user: User, chatItems: [AChatItem])
    case hostConnected(protocol: String, transportHost: String)
    case hostDisconnected(protocol: String, transportHost: String)
    case subscriptionStatus(server: String, subscriptionStatus: SubscriptionStatus, connections: [String])
    case messageError(user: User, severity: String, errorMessage: String)
    case chatError(chatError: ChatError)
    case chatErrors(chatErrors: [ChatError])
    case receivedGroupInvitation(user: User, groupInfo: GroupInfo, contact: Contact, fromMemberRole: GroupMemberRole, memberRole: GroupMemberRole)
    case userAcceptedGroupSent(user: User, groupInfo: GroupInfo, hostContact: Contact?)
    case groupLinkConnecting(user: User, groupInfo: GroupInfo, hostMember: GroupMember)
    /// A contact card (prepared contact) whose address answered as a business: the contact became
    /// this business chat (simplex-chat CEvtBusinessLinkConnecting).
    case businessLinkConnecting(user: User, groupInfo: GroupInfo, hostMember: GroupMember, fromContact: Contact)
    /// A repeated request to our business address (same `contactReqId`): its chat exists already.
    case businessRequestAlreadyAccepted(user: User, groupInfo: GroupInfo)
    /// The host refused our join through its group link (simplex-chat TEGroupLinkRejected).
    case groupLinkRejected(user: User, groupInfo: GroupInfo, groupRejectionReason: GroupRejectionReason)
    /// We refused a join through our group link (TERejectingGroupJoinRequestMember).
    case rejectingGroupJoinRequestMember(user: User, groupInfo: GroupInfo, member: GroupMember, groupRejectionReason: GroupRejectionReason)
    case acceptingGroupJoinRequestMember(user: User, groupInfo: GroupInfo, member: GroupMember)
    case userJoinedGroup(user: User, groupInfo: GroupInfo, hostMember: GroupMember)
    case joinedGroupMember(user: User, groupInfo: GroupInfo, member: GroupMember)
    case joinedGroupMemberConnecting(user: User, groupInfo: GroupInfo, hostMember: GroupMember, member: GroupMember)
    /// simplex-chat CEvtMemberAcceptedByOther: a moderator (not us) admitted `member` or moved it on to review.
    case memberAcceptedByOther(user: User, groupInfo: GroupInfo, acceptingMember: GroupMember, member: GroupMember)
    case connectedToGroupMember(user: User, groupInfo: GroupInfo, member: GroupMember, memberContact: Contact?)
    /// A member sent us x.grp.direct.inv: its contact, to accept (CEvtNewMemberContactReceivedInv).
    case newMemberContactReceivedInv(user: User, contact: Contact, groupInfo: GroupInfo, member: GroupMember)
    /// A probe showed that a contact and a group member are the same peer (CEvtContactAndMemberAssociated).
    case contactAndMemberAssociated(user: User, contact: Contact, groupInfo: GroupInfo, member: GroupMember, updatedContact: Contact)
    case memberRole(user: User, groupInfo: GroupInfo, byMember: GroupMember, member: GroupMember, fromRole: GroupMemberRole, toRole: GroupMemberRole)
    case memberBlockedForAll(user: User, groupInfo: GroupInfo, byMember: GroupMember, member: GroupMember, blocked: Bool)
    case deletedMember(user: User, groupInfo: GroupInfo, byMember: GroupMember, deletedMember: GroupMember, withMessages: Bool)
    case deletedMemberUser(user: User, groupInfo: GroupInfo, member: GroupMember, withMessages: Bool)
    case leftMember(user: User, groupInfo: GroupInfo, member: GroupMember)
    /// A forwarded message's author we did not know became an unknown member.
    case unknownMemberCreated(user: User, groupInfo: GroupInfo, forwardedByMember: GroupMember, member: GroupMember)
    /// A member first known as an unknown author was announced (x.grp.mem.new).
    case unknownMemberAnnounced(user: User, groupInfo: GroupInfo, announcingMember: GroupMember, unknownMember: GroupMember, announcedMember: GroupMember)
    case groupDeleted(user: User, groupInfo: GroupInfo, member: GroupMember)
    case groupUpdated(user: User, fromGroup: GroupInfo, toGroup: GroupInfo, member_: GroupMember?)
    case groupMemberUpdated(user: User, groupInfo: GroupInfo, fromMember: GroupMember, toMember: GroupMember)
    /// The ratchet re-synchronization state of a contact's connection changed (EVENTS.md).
    case contactRatchetSync(user: User, contact: Contact, ratchetSyncProgress: RatchetSyncProgress)
    case groupMemberRatchetSync(user: User, groupInfo: GroupInfo, member: GroupMember, ratchetSyncProgress: RatchetSyncProgress)
    /// The ratchet was re-synchronized, so the verified security code no longer applies
    /// (simplex-chat `TEContactVerificationReset`).
    case contactVerificationReset(user: User, contact: Contact)
    case groupMemberVerificationReset(user: User, groupInfo: GroupInfo, member: GroupMember)
    /// A queue switch of a contact's connection progressed (EVENTS.md).
    case contactSwitch(user: User, contact: Contact, switchProgress: SwitchProgress)
    case groupMemberSwitch(user: User, groupInfo: GroupInfo, member: GroupMember, switchProgress: SwitchProgress)
    /// A file event (EVENTS.md "File events"), written as its own tag.
    case file(ChatFileEvent)
    /// A member of a newer version, kept raw.
    case unknown(JSONValue)


    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "contactConnected": self = try .contactConnected(user: c.v("user"), contact: c.v("contact"), userCustomProfile: c.opt("userCustomProfile"))
        case "contactSndReady": self = try .contactSndReady(user: c.v("user"), contact: c.v("contact"))
        case "contactConnecting": self = try .contactConnecting(user: c.v("user"), contact: c.v("contact"))
        case "acceptingContactRequest": self = try .acceptingContactRequest(user: c.v("user"), contact: c.v("contact"))
        case "acceptingBusinessRequest": self = try .acceptingBusinessRequest(user: c.v("user"), groupInfo: c.v("groupInfo"))
        case "receivedContactRequest": self = try .receivedContactRequest(user: c.v("user"), contactRequest: c.v("contactRequest"), chat_: c.opt("chat_"))
        case "contactUpdated": self = try .contactUpdated(user: c.v("user"), fromContact: c.v("fromContact"), toContact: c.v("toContact"))
        case "contactDeletedByContact": self = try .contactDeletedByContact(user: c.v("user"), contact: c.v("contact"))
        case "newChatItems": self = try .newChatItems(user: c.v("user"), chatItems: c.v("chatItems"))
        case "chatItemUpdated": self = try .chatItemUpdated(user: c.v("user"), chatItem: c.v("chatItem"))
        case "chatItemNotChanged": self = try .chatItemNotChanged(user: c.v("user"), chatItem: c.v("chatItem"))
        case "chatItemsDeleted": self = try .chatItemsDeleted(user: c.v("user"), chatItemDeletions: c.v("chatItemDeletions"), byUser: c.v("byUser"), timed: c.v("timed"))
        case "groupChatItemsDeleted":
            self = try .groupChatItemsDeleted(user: c.v("user"), groupInfo: c.v("groupInfo"), chatItemIDs: c.v("chatItemIDs"), byUser: c.v("byUser"), member_: c.opt("member_"))
        case "chatItemReaction": self = try .chatItemReaction(user: c.v("user"), added: c.v("added"), reaction: c.v("reaction"))
        case "chatItemsStatusesUpdated": self = try .chatItemsStatusesUpdated(user: c.v("user"), chatItems: c.v("chatItems"))
        case "hostConnected": self = try .hostConnected(protocol: c.v("protocol"), transportHost: c.v("transportHost"))
        case "hostDisconnected": self = try .hostDisconnected(protocol: c.v("protocol"), transportHost: c.v("transportHost"))
        case "subscriptionStatus": self = try .subscriptionStatus(server: c.v("server"), subscriptionStatus: c.v("subscriptionStatus"), connections: c.v("connections"))
        case "messageError": self = try .messageError(user: c.v("user"), severity: c.v("severity"), errorMessage: c.v("errorMessage"))
        case "chatError": self = try .chatError(chatError: c.v("chatError"))
        case "chatErrors": self = try .chatErrors(chatErrors: c.v("chatErrors"))
        case "receivedGroupInvitation": self = try .receivedGroupInvitation(user: c.v("user"), groupInfo: c.v("groupInfo"), contact: c.v("contact"), fromMemberRole: c.v("fromMemberRole"), memberRole: c.v("memberRole"))
        case "userAcceptedGroupSent": self = try .userAcceptedGroupSent(user: c.v("user"), groupInfo: c.v("groupInfo"), hostContact: c.opt("hostContact"))
        case "groupLinkConnecting": self = try .groupLinkConnecting(user: c.v("user"), groupInfo: c.v("groupInfo"), hostMember: c.v("hostMember"))
        case "businessRequestAlreadyAccepted": self = try .businessRequestAlreadyAccepted(user: c.v("user"), groupInfo: c.v("groupInfo"))
        case "businessLinkConnecting":
            self = try .businessLinkConnecting(user: c.v("user"), groupInfo: c.v("groupInfo"), hostMember: c.v("hostMember"), fromContact: c.v("fromContact"))
        case "groupLinkRejected":
            self = try .groupLinkRejected(user: c.v("user"), groupInfo: c.v("groupInfo"), groupRejectionReason: c.v("groupRejectionReason"))
        case "rejectingGroupJoinRequestMember":
            self = try .rejectingGroupJoinRequestMember(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"),
                                                        groupRejectionReason: c.v("groupRejectionReason"))
        case "acceptingGroupJoinRequestMember": self = try .acceptingGroupJoinRequestMember(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "userJoinedGroup": self = try .userJoinedGroup(user: c.v("user"), groupInfo: c.v("groupInfo"), hostMember: c.v("hostMember"))
        case "joinedGroupMember": self = try .joinedGroupMember(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "joinedGroupMemberConnecting": self = try .joinedGroupMemberConnecting(user: c.v("user"), groupInfo: c.v("groupInfo"), hostMember: c.v("hostMember"), member: c.v("member"))
        case "memberAcceptedByOther": self = try .memberAcceptedByOther(user: c.v("user"), groupInfo: c.v("groupInfo"), acceptingMember: c.v("acceptingMember"), member: c.v("member"))
        case "connectedToGroupMember": self = try .connectedToGroupMember(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"), memberContact: c.opt("memberContact"))
        case "newMemberContactReceivedInv":
            self = try .newMemberContactReceivedInv(user: c.v("user"), contact: c.v("contact"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "contactAndMemberAssociated":
            self = try .contactAndMemberAssociated(user: c.v("user"), contact: c.v("contact"), groupInfo: c.v("groupInfo"), member: c.v("member"),
                                                   updatedContact: c.v("updatedContact"))
        case "memberRole": self = try .memberRole(user: c.v("user"), groupInfo: c.v("groupInfo"), byMember: c.v("byMember"), member: c.v("member"), fromRole: c.v("fromRole"), toRole: c.v("toRole"))
        case "memberBlockedForAll": self = try .memberBlockedForAll(user: c.v("user"), groupInfo: c.v("groupInfo"), byMember: c.v("byMember"), member: c.v("member"), blocked: c.v("blocked"))
        case "deletedMember": self = try .deletedMember(user: c.v("user"), groupInfo: c.v("groupInfo"), byMember: c.v("byMember"), deletedMember: c.v("deletedMember"), withMessages: c.v("withMessages"))
        case "deletedMemberUser": self = try .deletedMemberUser(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"), withMessages: c.v("withMessages"))
        case "leftMember": self = try .leftMember(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "unknownMemberCreated":
            self = try .unknownMemberCreated(user: c.v("user"), groupInfo: c.v("groupInfo"), forwardedByMember: c.v("forwardedByMember"), member: c.v("member"))
        case "unknownMemberAnnounced":
            self = try .unknownMemberAnnounced(user: c.v("user"), groupInfo: c.v("groupInfo"), announcingMember: c.v("announcingMember"),
                                               unknownMember: c.v("unknownMember"), announcedMember: c.v("announcedMember"))
        case "groupDeleted": self = try .groupDeleted(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "groupUpdated": self = try .groupUpdated(user: c.v("user"), fromGroup: c.v("fromGroup"), toGroup: c.v("toGroup"), member_: c.opt("member_"))
        case "groupMemberUpdated": self = try .groupMemberUpdated(user: c.v("user"), groupInfo: c.v("groupInfo"), fromMember: c.v("fromMember"), toMember: c.v("toMember"))
        case "contactRatchetSync":
            self = try .contactRatchetSync(user: c.v("user"), contact: c.v("contact"), ratchetSyncProgress: c.v("ratchetSyncProgress"))
        case "groupMemberRatchetSync":
            self = try .groupMemberRatchetSync(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"),
                                               ratchetSyncProgress: c.v("ratchetSyncProgress"))
        case "contactVerificationReset": self = try .contactVerificationReset(user: c.v("user"), contact: c.v("contact"))
        case "groupMemberVerificationReset":
            self = try .groupMemberVerificationReset(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"))
        case "contactSwitch": self = try .contactSwitch(user: c.v("user"), contact: c.v("contact"), switchProgress: c.v("switchProgress"))
        case "groupMemberSwitch":
            self = try .groupMemberSwitch(user: c.v("user"), groupInfo: c.v("groupInfo"), member: c.v("member"), switchProgress: c.v("switchProgress"))
        case let t where ChatFileEvent.tags.contains(t): self = try .file(ChatFileEvent(from: decoder))
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
        case .contactConnected(let user, let contact, let userCustomProfile):
            try c.tag("contactConnected")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(userCustomProfile, "userCustomProfile")
        case .contactSndReady(let user, let contact):
            try c.tag("contactSndReady")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .contactConnecting(let user, let contact):
            try c.tag("contactConnecting")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .acceptingContactRequest(let user, let contact):
            try c.tag("acceptingContactRequest")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .acceptingBusinessRequest(let user, let groupInfo):
            try c.tag("acceptingBusinessRequest")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
        case .receivedContactRequest(let user, let contactRequest, let chat_):
            try c.tag("receivedContactRequest")
            try c.put(user, "user")
            try c.put(contactRequest, "contactRequest")
            try c.put(chat_, "chat_")
        case .contactUpdated(let user, let fromContact, let toContact):
            try c.tag("contactUpdated")
            try c.put(user, "user")
            try c.put(fromContact, "fromContact")
            try c.put(toContact, "toContact")
        case .contactDeletedByContact(let user, let contact):
            try c.tag("contactDeletedByContact")
            try c.put(user, "user")
            try c.put(contact, "contact")
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
        case .chatItemReaction(let user, let added, let reaction):
            try c.tag("chatItemReaction")
            try c.put(user, "user")
            try c.put(added, "added")
            try c.put(reaction, "reaction")
        case .chatItemsStatusesUpdated(let user, let chatItems):
            try c.tag("chatItemsStatusesUpdated")
            try c.put(user, "user")
            try c.put(chatItems, "chatItems")
        case .hostConnected(let `protocol`, let transportHost):
            try c.tag("hostConnected")
            try c.put(`protocol`, "protocol")
            try c.put(transportHost, "transportHost")
        case .hostDisconnected(let `protocol`, let transportHost):
            try c.tag("hostDisconnected")
            try c.put(`protocol`, "protocol")
            try c.put(transportHost, "transportHost")
        case .subscriptionStatus(let server, let subscriptionStatus, let connections):
            try c.tag("subscriptionStatus")
            try c.put(server, "server")
            try c.put(subscriptionStatus, "subscriptionStatus")
            try c.put(connections, "connections")
        case .messageError(let user, let severity, let errorMessage):
            try c.tag("messageError")
            try c.put(user, "user")
            try c.put(severity, "severity")
            try c.put(errorMessage, "errorMessage")
        case .chatError(let chatError):
            try c.tag("chatError")
            try c.put(chatError, "chatError")
        case .chatErrors(let chatErrors):
            try c.tag("chatErrors")
            try c.put(chatErrors, "chatErrors")
        case .receivedGroupInvitation(let user, let groupInfo, let contact, let fromMemberRole, let memberRole):
            try c.tag("receivedGroupInvitation")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(contact, "contact")
            try c.put(fromMemberRole, "fromMemberRole")
            try c.put(memberRole, "memberRole")
        case .userAcceptedGroupSent(let user, let groupInfo, let hostContact):
            try c.tag("userAcceptedGroupSent")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(hostContact, "hostContact")
        case .groupLinkConnecting(let user, let groupInfo, let hostMember):
            try c.tag("groupLinkConnecting")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(hostMember, "hostMember")
        case .businessRequestAlreadyAccepted(let user, let groupInfo):
            try c.tag("businessRequestAlreadyAccepted")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
        case .businessLinkConnecting(let user, let groupInfo, let hostMember, let fromContact):
            try c.tag("businessLinkConnecting")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(hostMember, "hostMember")
            try c.put(fromContact, "fromContact")
        case .groupLinkRejected(let user, let groupInfo, let reason):
            try c.tag("groupLinkRejected")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(reason, "groupRejectionReason")
        case .rejectingGroupJoinRequestMember(let user, let groupInfo, let member, let reason):
            try c.tag("rejectingGroupJoinRequestMember")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(reason, "groupRejectionReason")
        case .acceptingGroupJoinRequestMember(let user, let groupInfo, let member):
            try c.tag("acceptingGroupJoinRequestMember")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .userJoinedGroup(let user, let groupInfo, let hostMember):
            try c.tag("userJoinedGroup")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(hostMember, "hostMember")
        case .joinedGroupMember(let user, let groupInfo, let member):
            try c.tag("joinedGroupMember")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .joinedGroupMemberConnecting(let user, let groupInfo, let hostMember, let member):
            try c.tag("joinedGroupMemberConnecting")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(hostMember, "hostMember")
            try c.put(member, "member")
        case .memberAcceptedByOther(let user, let groupInfo, let acceptingMember, let member):
            try c.tag("memberAcceptedByOther")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(acceptingMember, "acceptingMember")
            try c.put(member, "member")
        case .newMemberContactReceivedInv(let user, let contact, let groupInfo, let member):
            try c.tag("newMemberContactReceivedInv")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .contactAndMemberAssociated(let user, let contact, let groupInfo, let member, let updatedContact):
            try c.tag("contactAndMemberAssociated")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(updatedContact, "updatedContact")
        case .connectedToGroupMember(let user, let groupInfo, let member, let memberContact):
            try c.tag("connectedToGroupMember")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(memberContact, "memberContact")
        case .memberRole(let user, let groupInfo, let byMember, let member, let fromRole, let toRole):
            try c.tag("memberRole")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(byMember, "byMember")
            try c.put(member, "member")
            try c.put(fromRole, "fromRole")
            try c.put(toRole, "toRole")
        case .memberBlockedForAll(let user, let groupInfo, let byMember, let member, let blocked):
            try c.tag("memberBlockedForAll")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(byMember, "byMember")
            try c.put(member, "member")
            try c.put(blocked, "blocked")
        case .deletedMember(let user, let groupInfo, let byMember, let deletedMember, let withMessages):
            try c.tag("deletedMember")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(byMember, "byMember")
            try c.put(deletedMember, "deletedMember")
            try c.put(withMessages, "withMessages")
        case .deletedMemberUser(let user, let groupInfo, let member, let withMessages):
            try c.tag("deletedMemberUser")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(withMessages, "withMessages")
        case .leftMember(let user, let groupInfo, let member):
            try c.tag("leftMember")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .unknownMemberCreated(let user, let groupInfo, let forwardedByMember, let member):
            try c.tag("unknownMemberCreated")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(forwardedByMember, "forwardedByMember")
            try c.put(member, "member")
        case .unknownMemberAnnounced(let user, let groupInfo, let announcingMember, let unknownMember, let announcedMember):
            try c.tag("unknownMemberAnnounced")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(announcingMember, "announcingMember")
            try c.put(unknownMember, "unknownMember")
            try c.put(announcedMember, "announcedMember")
        case .groupDeleted(let user, let groupInfo, let member):
            try c.tag("groupDeleted")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .groupUpdated(let user, let fromGroup, let toGroup, let member_):
            try c.tag("groupUpdated")
            try c.put(user, "user")
            try c.put(fromGroup, "fromGroup")
            try c.put(toGroup, "toGroup")
            try c.put(member_, "member_")
        case .groupMemberUpdated(let user, let groupInfo, let fromMember, let toMember):
            try c.tag("groupMemberUpdated")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(fromMember, "fromMember")
            try c.put(toMember, "toMember")
        case .contactRatchetSync(let user, let contact, let progress):
            try c.tag("contactRatchetSync")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(progress, "ratchetSyncProgress")
        case .groupMemberRatchetSync(let user, let groupInfo, let member, let progress):
            try c.tag("groupMemberRatchetSync")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(progress, "ratchetSyncProgress")
        case .contactVerificationReset(let user, let contact):
            try c.tag("contactVerificationReset")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .groupMemberVerificationReset(let user, let groupInfo, let member):
            try c.tag("groupMemberVerificationReset")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
        case .contactSwitch(let user, let contact, let progress):
            try c.tag("contactSwitch")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(progress, "switchProgress")
        case .groupMemberSwitch(let user, let groupInfo, let member, let progress):
            try c.tag("groupMemberSwitch")
            try c.put(user, "user")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(progress, "switchProgress")
        case .unknown: break
        case .unknown, .file: break
        }
    }
}
