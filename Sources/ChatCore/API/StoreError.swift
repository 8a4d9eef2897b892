/// A database lookup or constraint error (TYPES.md StoreError).
public enum StoreError: Sendable, Hashable, Codable {
    case duplicateName
    case userNotFound(userId: Int64)
    case userNotFoundByName(contactName: String)
    case userNotFoundByContactId(contactId: Int64)
    case userNotFoundByGroupId(groupId: Int64)
    case userNotFoundByFileId(fileId: Int64)
    case userNotFoundByContactRequestId(contactRequestId: Int64)
    case contactNotFound(contactId: Int64)
    case contactNotFoundByName(contactName: String)
    case contactNotFoundByMemberId(groupMemberId: Int64)
    case contactNotReady(contactName: String)
    case duplicateContactLink
    case userContactLinkNotFound
    case contactRequestNotFound(contactRequestId: Int64)
    case contactRequestNotFoundByName(contactName: String)
    case invalidContactRequestEntity(contactRequestId: Int64)
    case invalidBusinessChatContactRequest
    case groupNotFound(groupId: Int64)
    case groupNotFoundByName(groupName: String)
    case groupMemberNameNotFound(groupId: Int64, groupMemberName: String)
    case groupMemberNotFound(groupMemberId: Int64)
    case groupMemberNotFoundByIndex(groupMemberIndex: Int64)
    case memberRelationsVectorNotFound(groupMemberId: Int64)
    case groupHostMemberNotFound(groupId: Int64)
    case groupMemberNotFoundByMemberId(memberId: String)
    case memberContactGroupMemberNotFound(contactId: Int64)
    case invalidMemberRelationUpdate
    case groupWithoutUser
    case duplicateGroupMember
    case groupAlreadyJoined
    case groupInvitationNotFound
    case noteFolderAlreadyExists(noteFolderId: Int64)
    case noteFolderNotFound(noteFolderId: Int64)
    case userNoteFolderNotFound
    case sndFileNotFound(fileId: Int64)
    case sndFileInvalid(fileId: Int64)
    case rcvFileNotFound(fileId: Int64)
    case rcvFileDescrNotFound(fileId: Int64)
    case fileNotFound(fileId: Int64)
    case rcvFileInvalid(fileId: Int64)
    case rcvFileInvalidDescrPart
    case localFileNoTransfer(fileId: Int64)
    case sharedMsgIdNotFoundByFileId(fileId: Int64)
    case fileIdNotFoundBySharedMsgId(sharedMsgId: String)
    case sndFileNotFoundXFTP(agentSndFileId: String)
    case rcvFileNotFoundXFTP(agentRcvFileId: String)
    case connectionNotFound(agentConnId: String)
    case connectionNotFoundById(connId: Int64)
    case connectionNotFoundByMemberId(groupMemberId: Int64)
    case pendingConnectionNotFound(connId: Int64)
    case uniqueID
    case largeMsg
    case internalError(message: String)
    case dBException(message: String)
    case dBBusyError(message: String)
    case badChatItem(itemId: Int64, itemTs: UTCTime?)
    case chatItemNotFound(itemId: Int64)
    case chatItemNotFoundByText(text: String)
    case chatItemSharedMsgIdNotFound(sharedMsgId: String)
    case chatItemNotFoundByFileId(fileId: Int64)
    case chatItemNotFoundByContactId(contactId: Int64)
    case chatItemNotFoundByGroupId(groupId: Int64)
    case profileNotFound(profileId: Int64)
    case duplicateGroupLink(groupInfo: GroupInfo)
    case groupLinkNotFound(groupInfo: GroupInfo)
    case hostMemberIdNotFound(groupId: Int64)
    case contactNotFoundByFileId(fileId: Int64)
    case noGroupSndStatus(itemId: Int64, groupMemberId: Int64)
    case duplicateGroupMessage(groupId: Int64, sharedMsgId: String, authorGroupMemberId: Int64?, forwardedByGroupMemberId: Int64?)
    case remoteHostNotFound(remoteHostId: Int64)
    case remoteHostUnknown
    case remoteHostDuplicateCA
    case remoteCtrlNotFound(remoteCtrlId: Int64)
    case remoteCtrlDuplicateCA
    case prohibitedDeleteUser(userId: Int64, contactId: Int64)
    case operatorNotFound(serverOperatorId: Int64)
    case usageConditionsNotFound
    case invalidQuote
    case invalidMention
    case invalidDeliveryTask(taskId: Int64)
    case deliveryTaskNotFound(taskId: Int64)
    case invalidDeliveryJob(jobId: Int64)
    case deliveryJobNotFound(jobId: Int64)
    case workItemError(errContext: String)
    /// A member of a newer version, kept raw.
    case unknown(JSONValue)


    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "duplicateName": self = .duplicateName
        case "userNotFound": self = try .userNotFound(userId: c.v("userId"))
        case "userNotFoundByName": self = try .userNotFoundByName(contactName: c.v("contactName"))
        case "userNotFoundByContactId": self = try .userNotFoundByContactId(contactId: c.v("contactId"))
        case "userNotFoundByGroupId": self = try .userNotFoundByGroupId(groupId: c.v("groupId"))
        case "userNotFoundByFileId": self = try .userNotFoundByFileId(fileId: c.v("fileId"))
        case "userNotFoundByContactRequestId": self = try .userNotFoundByContactRequestId(contactRequestId: c.v("contactRequestId"))
        case "contactNotFound": self = try .contactNotFound(contactId: c.v("contactId"))
        case "contactNotFoundByName": self = try .contactNotFoundByName(contactName: c.v("contactName"))
        case "contactNotFoundByMemberId": self = try .contactNotFoundByMemberId(groupMemberId: c.v("groupMemberId"))
        case "contactNotReady": self = try .contactNotReady(contactName: c.v("contactName"))
        case "duplicateContactLink": self = .duplicateContactLink
        case "userContactLinkNotFound": self = .userContactLinkNotFound
        case "contactRequestNotFound": self = try .contactRequestNotFound(contactRequestId: c.v("contactRequestId"))
        case "contactRequestNotFoundByName": self = try .contactRequestNotFoundByName(contactName: c.v("contactName"))
        case "invalidContactRequestEntity": self = try .invalidContactRequestEntity(contactRequestId: c.v("contactRequestId"))
        case "invalidBusinessChatContactRequest": self = .invalidBusinessChatContactRequest
        case "groupNotFound": self = try .groupNotFound(groupId: c.v("groupId"))
        case "groupNotFoundByName": self = try .groupNotFoundByName(groupName: c.v("groupName"))
        case "groupMemberNameNotFound": self = try .groupMemberNameNotFound(groupId: c.v("groupId"), groupMemberName: c.v("groupMemberName"))
        case "groupMemberNotFound": self = try .groupMemberNotFound(groupMemberId: c.v("groupMemberId"))
        case "groupMemberNotFoundByIndex": self = try .groupMemberNotFoundByIndex(groupMemberIndex: c.v("groupMemberIndex"))
        case "memberRelationsVectorNotFound": self = try .memberRelationsVectorNotFound(groupMemberId: c.v("groupMemberId"))
        case "groupHostMemberNotFound": self = try .groupHostMemberNotFound(groupId: c.v("groupId"))
        case "groupMemberNotFoundByMemberId": self = try .groupMemberNotFoundByMemberId(memberId: c.v("memberId"))
        case "memberContactGroupMemberNotFound": self = try .memberContactGroupMemberNotFound(contactId: c.v("contactId"))
        case "invalidMemberRelationUpdate": self = .invalidMemberRelationUpdate
        case "groupWithoutUser": self = .groupWithoutUser
        case "duplicateGroupMember": self = .duplicateGroupMember
        case "groupAlreadyJoined": self = .groupAlreadyJoined
        case "groupInvitationNotFound": self = .groupInvitationNotFound
        case "noteFolderAlreadyExists": self = try .noteFolderAlreadyExists(noteFolderId: c.v("noteFolderId"))
        case "noteFolderNotFound": self = try .noteFolderNotFound(noteFolderId: c.v("noteFolderId"))
        case "userNoteFolderNotFound": self = .userNoteFolderNotFound
        case "sndFileNotFound": self = try .sndFileNotFound(fileId: c.v("fileId"))
        case "sndFileInvalid": self = try .sndFileInvalid(fileId: c.v("fileId"))
        case "rcvFileNotFound": self = try .rcvFileNotFound(fileId: c.v("fileId"))
        case "rcvFileDescrNotFound": self = try .rcvFileDescrNotFound(fileId: c.v("fileId"))
        case "fileNotFound": self = try .fileNotFound(fileId: c.v("fileId"))
        case "rcvFileInvalid": self = try .rcvFileInvalid(fileId: c.v("fileId"))
        case "rcvFileInvalidDescrPart": self = .rcvFileInvalidDescrPart
        case "localFileNoTransfer": self = try .localFileNoTransfer(fileId: c.v("fileId"))
        case "sharedMsgIdNotFoundByFileId": self = try .sharedMsgIdNotFoundByFileId(fileId: c.v("fileId"))
        case "fileIdNotFoundBySharedMsgId": self = try .fileIdNotFoundBySharedMsgId(sharedMsgId: c.v("sharedMsgId"))
        case "sndFileNotFoundXFTP": self = try .sndFileNotFoundXFTP(agentSndFileId: c.v("agentSndFileId"))
        case "rcvFileNotFoundXFTP": self = try .rcvFileNotFoundXFTP(agentRcvFileId: c.v("agentRcvFileId"))
        case "connectionNotFound": self = try .connectionNotFound(agentConnId: c.v("agentConnId"))
        case "connectionNotFoundById": self = try .connectionNotFoundById(connId: c.v("connId"))
        case "connectionNotFoundByMemberId": self = try .connectionNotFoundByMemberId(groupMemberId: c.v("groupMemberId"))
        case "pendingConnectionNotFound": self = try .pendingConnectionNotFound(connId: c.v("connId"))
        case "uniqueID": self = .uniqueID
        case "largeMsg": self = .largeMsg
        case "internalError": self = try .internalError(message: c.v("message"))
        case "dBException": self = try .dBException(message: c.v("message"))
        case "dBBusyError": self = try .dBBusyError(message: c.v("message"))
        case "badChatItem": self = try .badChatItem(itemId: c.v("itemId"), itemTs: c.opt("itemTs"))
        case "chatItemNotFound": self = try .chatItemNotFound(itemId: c.v("itemId"))
        case "chatItemNotFoundByText": self = try .chatItemNotFoundByText(text: c.v("text"))
        case "chatItemSharedMsgIdNotFound": self = try .chatItemSharedMsgIdNotFound(sharedMsgId: c.v("sharedMsgId"))
        case "chatItemNotFoundByFileId": self = try .chatItemNotFoundByFileId(fileId: c.v("fileId"))
        case "chatItemNotFoundByContactId": self = try .chatItemNotFoundByContactId(contactId: c.v("contactId"))
        case "chatItemNotFoundByGroupId": self = try .chatItemNotFoundByGroupId(groupId: c.v("groupId"))
        case "profileNotFound": self = try .profileNotFound(profileId: c.v("profileId"))
        case "duplicateGroupLink": self = try .duplicateGroupLink(groupInfo: c.v("groupInfo"))
        case "groupLinkNotFound": self = try .groupLinkNotFound(groupInfo: c.v("groupInfo"))
        case "hostMemberIdNotFound": self = try .hostMemberIdNotFound(groupId: c.v("groupId"))
        case "contactNotFoundByFileId": self = try .contactNotFoundByFileId(fileId: c.v("fileId"))
        case "noGroupSndStatus": self = try .noGroupSndStatus(itemId: c.v("itemId"), groupMemberId: c.v("groupMemberId"))
        case "duplicateGroupMessage": self = try .duplicateGroupMessage(groupId: c.v("groupId"), sharedMsgId: c.v("sharedMsgId"), authorGroupMemberId: c.opt("authorGroupMemberId"), forwardedByGroupMemberId: c.opt("forwardedByGroupMemberId"))
        case "remoteHostNotFound": self = try .remoteHostNotFound(remoteHostId: c.v("remoteHostId"))
        case "remoteHostUnknown": self = .remoteHostUnknown
        case "remoteHostDuplicateCA": self = .remoteHostDuplicateCA
        case "remoteCtrlNotFound": self = try .remoteCtrlNotFound(remoteCtrlId: c.v("remoteCtrlId"))
        case "remoteCtrlDuplicateCA": self = .remoteCtrlDuplicateCA
        case "prohibitedDeleteUser": self = try .prohibitedDeleteUser(userId: c.v("userId"), contactId: c.v("contactId"))
        case "operatorNotFound": self = try .operatorNotFound(serverOperatorId: c.v("serverOperatorId"))
        case "usageConditionsNotFound": self = .usageConditionsNotFound
        case "invalidQuote": self = .invalidQuote
        case "invalidMention": self = .invalidMention
        case "invalidDeliveryTask": self = try .invalidDeliveryTask(taskId: c.v("taskId"))
        case "deliveryTaskNotFound": self = try .deliveryTaskNotFound(taskId: c.v("taskId"))
        case "invalidDeliveryJob": self = try .invalidDeliveryJob(jobId: c.v("jobId"))
        case "deliveryJobNotFound": self = try .deliveryJobNotFound(jobId: c.v("jobId"))
        case "workItemError": self = try .workItemError(errContext: c.v("errContext"))
        default: self = try .unknown(rawJSON(decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let json) = self {
            try json.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .duplicateName: try c.tag("duplicateName")
        case .userNotFound(let userId):
            try c.tag("userNotFound")
            try c.put(userId, "userId")
        case .userNotFoundByName(let contactName):
            try c.tag("userNotFoundByName")
            try c.put(contactName, "contactName")
        case .userNotFoundByContactId(let contactId):
            try c.tag("userNotFoundByContactId")
            try c.put(contactId, "contactId")
        case .userNotFoundByGroupId(let groupId):
            try c.tag("userNotFoundByGroupId")
            try c.put(groupId, "groupId")
        case .userNotFoundByFileId(let fileId):
            try c.tag("userNotFoundByFileId")
            try c.put(fileId, "fileId")
        case .userNotFoundByContactRequestId(let contactRequestId):
            try c.tag("userNotFoundByContactRequestId")
            try c.put(contactRequestId, "contactRequestId")
        case .contactNotFound(let contactId):
            try c.tag("contactNotFound")
            try c.put(contactId, "contactId")
        case .contactNotFoundByName(let contactName):
            try c.tag("contactNotFoundByName")
            try c.put(contactName, "contactName")
        case .contactNotFoundByMemberId(let groupMemberId):
            try c.tag("contactNotFoundByMemberId")
            try c.put(groupMemberId, "groupMemberId")
        case .contactNotReady(let contactName):
            try c.tag("contactNotReady")
            try c.put(contactName, "contactName")
        case .duplicateContactLink: try c.tag("duplicateContactLink")
        case .userContactLinkNotFound: try c.tag("userContactLinkNotFound")
        case .contactRequestNotFound(let contactRequestId):
            try c.tag("contactRequestNotFound")
            try c.put(contactRequestId, "contactRequestId")
        case .contactRequestNotFoundByName(let contactName):
            try c.tag("contactRequestNotFoundByName")
            try c.put(contactName, "contactName")
        case .invalidContactRequestEntity(let contactRequestId):
            try c.tag("invalidContactRequestEntity")
            try c.put(contactRequestId, "contactRequestId")
        case .invalidBusinessChatContactRequest: try c.tag("invalidBusinessChatContactRequest")
        case .groupNotFound(let groupId):
            try c.tag("groupNotFound")
            try c.put(groupId, "groupId")
        case .groupNotFoundByName(let groupName):
            try c.tag("groupNotFoundByName")
            try c.put(groupName, "groupName")
        case .groupMemberNameNotFound(let groupId, let groupMemberName):
            try c.tag("groupMemberNameNotFound")
            try c.put(groupId, "groupId")
            try c.put(groupMemberName, "groupMemberName")
        case .groupMemberNotFound(let groupMemberId):
            try c.tag("groupMemberNotFound")
            try c.put(groupMemberId, "groupMemberId")
        case .groupMemberNotFoundByIndex(let groupMemberIndex):
            try c.tag("groupMemberNotFoundByIndex")
            try c.put(groupMemberIndex, "groupMemberIndex")
        case .memberRelationsVectorNotFound(let groupMemberId):
            try c.tag("memberRelationsVectorNotFound")
            try c.put(groupMemberId, "groupMemberId")
        case .groupHostMemberNotFound(let groupId):
            try c.tag("groupHostMemberNotFound")
            try c.put(groupId, "groupId")
        case .groupMemberNotFoundByMemberId(let memberId):
            try c.tag("groupMemberNotFoundByMemberId")
            try c.put(memberId, "memberId")
        case .memberContactGroupMemberNotFound(let contactId):
            try c.tag("memberContactGroupMemberNotFound")
            try c.put(contactId, "contactId")
        case .invalidMemberRelationUpdate: try c.tag("invalidMemberRelationUpdate")
        case .groupWithoutUser: try c.tag("groupWithoutUser")
        case .duplicateGroupMember: try c.tag("duplicateGroupMember")
        case .groupAlreadyJoined: try c.tag("groupAlreadyJoined")
        case .groupInvitationNotFound: try c.tag("groupInvitationNotFound")
        case .noteFolderAlreadyExists(let noteFolderId):
            try c.tag("noteFolderAlreadyExists")
            try c.put(noteFolderId, "noteFolderId")
        case .noteFolderNotFound(let noteFolderId):
            try c.tag("noteFolderNotFound")
            try c.put(noteFolderId, "noteFolderId")
        case .userNoteFolderNotFound: try c.tag("userNoteFolderNotFound")
        case .sndFileNotFound(let fileId):
            try c.tag("sndFileNotFound")
            try c.put(fileId, "fileId")
        case .sndFileInvalid(let fileId):
            try c.tag("sndFileInvalid")
            try c.put(fileId, "fileId")
        case .rcvFileNotFound(let fileId):
            try c.tag("rcvFileNotFound")
            try c.put(fileId, "fileId")
        case .rcvFileDescrNotFound(let fileId):
            try c.tag("rcvFileDescrNotFound")
            try c.put(fileId, "fileId")
        case .fileNotFound(let fileId):
            try c.tag("fileNotFound")
            try c.put(fileId, "fileId")
        case .rcvFileInvalid(let fileId):
            try c.tag("rcvFileInvalid")
            try c.put(fileId, "fileId")
        case .rcvFileInvalidDescrPart: try c.tag("rcvFileInvalidDescrPart")
        case .localFileNoTransfer(let fileId):
            try c.tag("localFileNoTransfer")
            try c.put(fileId, "fileId")
        case .sharedMsgIdNotFoundByFileId(let fileId):
            try c.tag("sharedMsgIdNotFoundByFileId")
            try c.put(fileId, "fileId")
        case .fileIdNotFoundBySharedMsgId(let sharedMsgId):
            try c.tag("fileIdNotFoundBySharedMsgId")
            try c.put(sharedMsgId, "sharedMsgId")
        case .sndFileNotFoundXFTP(let agentSndFileId):
            try c.tag("sndFileNotFoundXFTP")
            try c.put(agentSndFileId, "agentSndFileId")
        case .rcvFileNotFoundXFTP(let agentRcvFileId):
            try c.tag("rcvFileNotFoundXFTP")
            try c.put(agentRcvFileId, "agentRcvFileId")
        case .connectionNotFound(let agentConnId):
            try c.tag("connectionNotFound")
            try c.put(agentConnId, "agentConnId")
        case .connectionNotFoundById(let connId):
            try c.tag("connectionNotFoundById")
            try c.put(connId, "connId")
        case .connectionNotFoundByMemberId(let groupMemberId):
            try c.tag("connectionNotFoundByMemberId")
            try c.put(groupMemberId, "groupMemberId")
        case .pendingConnectionNotFound(let connId):
            try c.tag("pendingConnectionNotFound")
            try c.put(connId, "connId")
        case .uniqueID: try c.tag("uniqueID")
        case .largeMsg: try c.tag("largeMsg")
        case .internalError(let message):
            try c.tag("internalError")
            try c.put(message, "message")
        case .dBException(let message):
            try c.tag("dBException")
            try c.put(message, "message")
        case .dBBusyError(let message):
            try c.tag("dBBusyError")
            try c.put(message, "message")
        case .badChatItem(let itemId, let itemTs):
            try c.tag("badChatItem")
            try c.put(itemId, "itemId")
            try c.put(itemTs, "itemTs")
        case .chatItemNotFound(let itemId):
            try c.tag("chatItemNotFound")
            try c.put(itemId, "itemId")
        case .chatItemNotFoundByText(let text):
            try c.tag("chatItemNotFoundByText")
            try c.put(text, "text")
        case .chatItemSharedMsgIdNotFound(let sharedMsgId):
            try c.tag("chatItemSharedMsgIdNotFound")
            try c.put(sharedMsgId, "sharedMsgId")
        case .chatItemNotFoundByFileId(let fileId):
            try c.tag("chatItemNotFoundByFileId")
            try c.put(fileId, "fileId")
        case .chatItemNotFoundByContactId(let contactId):
            try c.tag("chatItemNotFoundByContactId")
            try c.put(contactId, "contactId")
        case .chatItemNotFoundByGroupId(let groupId):
            try c.tag("chatItemNotFoundByGroupId")
            try c.put(groupId, "groupId")
        case .profileNotFound(let profileId):
            try c.tag("profileNotFound")
            try c.put(profileId, "profileId")
        case .duplicateGroupLink(let groupInfo):
            try c.tag("duplicateGroupLink")
            try c.put(groupInfo, "groupInfo")
        case .groupLinkNotFound(let groupInfo):
            try c.tag("groupLinkNotFound")
            try c.put(groupInfo, "groupInfo")
        case .hostMemberIdNotFound(let groupId):
            try c.tag("hostMemberIdNotFound")
            try c.put(groupId, "groupId")
        case .contactNotFoundByFileId(let fileId):
            try c.tag("contactNotFoundByFileId")
            try c.put(fileId, "fileId")
        case .noGroupSndStatus(let itemId, let groupMemberId):
            try c.tag("noGroupSndStatus")
            try c.put(itemId, "itemId")
            try c.put(groupMemberId, "groupMemberId")
        case .duplicateGroupMessage(let groupId, let sharedMsgId, let authorGroupMemberId, let forwardedByGroupMemberId):
            try c.tag("duplicateGroupMessage")
            try c.put(groupId, "groupId")
            try c.put(sharedMsgId, "sharedMsgId")
            try c.put(authorGroupMemberId, "authorGroupMemberId")
            try c.put(forwardedByGroupMemberId, "forwardedByGroupMemberId")
        case .remoteHostNotFound(let remoteHostId):
            try c.tag("remoteHostNotFound")
            try c.put(remoteHostId, "remoteHostId")
        case .remoteHostUnknown: try c.tag("remoteHostUnknown")
        case .remoteHostDuplicateCA: try c.tag("remoteHostDuplicateCA")
        case .remoteCtrlNotFound(let remoteCtrlId):
            try c.tag("remoteCtrlNotFound")
            try c.put(remoteCtrlId, "remoteCtrlId")
        case .remoteCtrlDuplicateCA: try c.tag("remoteCtrlDuplicateCA")
        case .prohibitedDeleteUser(let userId, let contactId):
            try c.tag("prohibitedDeleteUser")
            try c.put(userId, "userId")
            try c.put(contactId, "contactId")
        case .operatorNotFound(let serverOperatorId):
            try c.tag("operatorNotFound")
            try c.put(serverOperatorId, "serverOperatorId")
        case .usageConditionsNotFound: try c.tag("usageConditionsNotFound")
        case .invalidQuote: try c.tag("invalidQuote")
        case .invalidMention: try c.tag("invalidMention")
        case .invalidDeliveryTask(let taskId):
            try c.tag("invalidDeliveryTask")
            try c.put(taskId, "taskId")
        case .deliveryTaskNotFound(let taskId):
            try c.tag("deliveryTaskNotFound")
            try c.put(taskId, "taskId")
        case .invalidDeliveryJob(let jobId):
            try c.tag("invalidDeliveryJob")
            try c.put(jobId, "jobId")
        case .deliveryJobNotFound(let jobId):
            try c.tag("deliveryJobNotFound")
            try c.put(jobId, "jobId")
        case .workItemError(let errContext):
            try c.tag("workItemError")
            try c.put(errContext, "errContext")
        case .unknown: break
        }
    }
}
