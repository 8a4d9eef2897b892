/// A chat-level error (TYPES.md ChatErrorType). `commandError` is what an unparsable command
/// gives, as in simplex-chat.
public enum ChatErrorType: Sendable, Hashable, Codable {
    case noActiveUser
    case noConnectionUser(agentConnId: String)
    case noSndFileUser(agentSndFileId: String)
    case noRcvFileUser(agentRcvFileId: String)
    case userUnknown
    case userExists(contactName: String)
    case differentActiveUser(commandUserId: Int64, activeUserId: Int64)
    case cantDeleteActiveUser(userId: Int64)
    case cantDeleteLastUser(userId: Int64)
    case cantHideLastUser(userId: Int64)
    case hiddenUserAlwaysMuted(userId: Int64)
    case emptyUserPassword(userId: Int64)
    case userAlreadyHidden(userId: Int64)
    case userNotHidden(userId: Int64)
    case invalidDisplayName(displayName: String, validName: String)
    case chatNotStarted
    case chatNotStopped
    case chatStoreChanged
    case invalidConnReq
    case unsupportedConnReq
    case connReqMessageProhibited
    case contactNotReady(contact: Contact)
    case contactNotActive(contact: Contact)
    case contactDisabled(contact: Contact)
    case connectionDisabled(connection: Connection)
    case groupUserRole(groupInfo: GroupInfo, requiredRole: GroupMemberRole)
    case groupMemberInitialRole(groupInfo: GroupInfo, initialRole: GroupMemberRole)
    case contactIncognitoCantInvite
    case groupIncognitoCantInvite
    case groupContactRole(contactName: String)
    case groupDuplicateMember(contactName: String)
    case groupDuplicateMemberId
    case groupNotJoined(groupInfo: GroupInfo)
    case groupMemberNotActive
    case cantBlockMemberForSelf(groupInfo: GroupInfo, member: GroupMember, setShowMessages: Bool)
    case groupMemberUserRemoved
    case groupMemberNotFound
    case groupCantResendInvitation(groupInfo: GroupInfo, contactName: String)
    case groupInternal(message: String)
    case fileNotFound(message: String)
    case fileSize(filePath: String)
    case fileAlreadyReceiving(message: String)
    case fileCancelled(message: String)
    case fileCancel(fileId: Int64, message: String)
    case fileAlreadyExists(filePath: String)
    case fileWrite(filePath: String, message: String)
    case fileSend(fileId: Int64, agentError: AgentErrorType)
    case fileRcvChunk(message: String)
    case fileInternal(message: String)
    case fileImageType(filePath: String)
    case fileImageSize(filePath: String)
    case fileNotReceived(fileId: Int64)
    case fileNotApproved(fileId: Int64, unknownServers: [String])
    case fallbackToSMPProhibited(fileId: Int64)
    case inlineFileProhibited(fileId: Int64)
    case invalidForward
    case invalidChatItemUpdate
    case invalidChatItemDelete
    case hasCurrentCall
    case noCurrentCall
    case callContact(contactId: Int64)
    case directMessagesProhibited(direction: MsgDirection, contact: Contact)
    case agentVersion
    case agentNoSubResult(agentConnId: String)
    case commandError(message: String)
    case agentCommandError(message: String)
    case invalidFileDescription(message: String)
    case connectionIncognitoChangeProhibited
    case connectionUserChangeProhibited
    case peerChatVRangeIncompatible
    case internalError(message: String)
    case `exception`(message: String)
    /// A member of a newer version, kept raw.
    case unknown(JSONValue)


    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "noActiveUser": self = .noActiveUser
        case "noConnectionUser": self = try .noConnectionUser(agentConnId: c.v("agentConnId"))
        case "noSndFileUser": self = try .noSndFileUser(agentSndFileId: c.v("agentSndFileId"))
        case "noRcvFileUser": self = try .noRcvFileUser(agentRcvFileId: c.v("agentRcvFileId"))
        case "userUnknown": self = .userUnknown
        case "userExists": self = try .userExists(contactName: c.v("contactName"))
        case "differentActiveUser": self = try .differentActiveUser(commandUserId: c.v("commandUserId"), activeUserId: c.v("activeUserId"))
        case "cantDeleteActiveUser": self = try .cantDeleteActiveUser(userId: c.v("userId"))
        case "cantDeleteLastUser": self = try .cantDeleteLastUser(userId: c.v("userId"))
        case "cantHideLastUser": self = try .cantHideLastUser(userId: c.v("userId"))
        case "hiddenUserAlwaysMuted": self = try .hiddenUserAlwaysMuted(userId: c.v("userId"))
        case "emptyUserPassword": self = try .emptyUserPassword(userId: c.v("userId"))
        case "userAlreadyHidden": self = try .userAlreadyHidden(userId: c.v("userId"))
        case "userNotHidden": self = try .userNotHidden(userId: c.v("userId"))
        case "invalidDisplayName": self = try .invalidDisplayName(displayName: c.v("displayName"), validName: c.v("validName"))
        case "chatNotStarted": self = .chatNotStarted
        case "chatNotStopped": self = .chatNotStopped
        case "chatStoreChanged": self = .chatStoreChanged
        case "invalidConnReq": self = .invalidConnReq
        case "unsupportedConnReq": self = .unsupportedConnReq
        case "connReqMessageProhibited": self = .connReqMessageProhibited
        case "contactNotReady": self = try .contactNotReady(contact: c.v("contact"))
        case "contactNotActive": self = try .contactNotActive(contact: c.v("contact"))
        case "contactDisabled": self = try .contactDisabled(contact: c.v("contact"))
        case "connectionDisabled": self = try .connectionDisabled(connection: c.v("connection"))
        case "groupUserRole": self = try .groupUserRole(groupInfo: c.v("groupInfo"), requiredRole: c.v("requiredRole"))
        case "groupMemberInitialRole": self = try .groupMemberInitialRole(groupInfo: c.v("groupInfo"), initialRole: c.v("initialRole"))
        case "contactIncognitoCantInvite": self = .contactIncognitoCantInvite
        case "groupIncognitoCantInvite": self = .groupIncognitoCantInvite
        case "groupContactRole": self = try .groupContactRole(contactName: c.v("contactName"))
        case "groupDuplicateMember": self = try .groupDuplicateMember(contactName: c.v("contactName"))
        case "groupDuplicateMemberId": self = .groupDuplicateMemberId
        case "groupNotJoined": self = try .groupNotJoined(groupInfo: c.v("groupInfo"))
        case "groupMemberNotActive": self = .groupMemberNotActive
        case "cantBlockMemberForSelf": self = try .cantBlockMemberForSelf(groupInfo: c.v("groupInfo"), member: c.v("member"), setShowMessages: c.v("setShowMessages"))
        case "groupMemberUserRemoved": self = .groupMemberUserRemoved
        case "groupMemberNotFound": self = .groupMemberNotFound
        case "groupCantResendInvitation": self = try .groupCantResendInvitation(groupInfo: c.v("groupInfo"), contactName: c.v("contactName"))
        case "groupInternal": self = try .groupInternal(message: c.v("message"))
        case "fileNotFound": self = try .fileNotFound(message: c.v("message"))
        case "fileSize": self = try .fileSize(filePath: c.v("filePath"))
        case "fileAlreadyReceiving": self = try .fileAlreadyReceiving(message: c.v("message"))
        case "fileCancelled": self = try .fileCancelled(message: c.v("message"))
        case "fileCancel": self = try .fileCancel(fileId: c.v("fileId"), message: c.v("message"))
        case "fileAlreadyExists": self = try .fileAlreadyExists(filePath: c.v("filePath"))
        case "fileWrite": self = try .fileWrite(filePath: c.v("filePath"), message: c.v("message"))
        case "fileSend": self = try .fileSend(fileId: c.v("fileId"), agentError: c.v("agentError"))
        case "fileRcvChunk": self = try .fileRcvChunk(message: c.v("message"))
        case "fileInternal": self = try .fileInternal(message: c.v("message"))
        case "fileImageType": self = try .fileImageType(filePath: c.v("filePath"))
        case "fileImageSize": self = try .fileImageSize(filePath: c.v("filePath"))
        case "fileNotReceived": self = try .fileNotReceived(fileId: c.v("fileId"))
        case "fileNotApproved": self = try .fileNotApproved(fileId: c.v("fileId"), unknownServers: c.v("unknownServers"))
        case "fallbackToSMPProhibited": self = try .fallbackToSMPProhibited(fileId: c.v("fileId"))
        case "inlineFileProhibited": self = try .inlineFileProhibited(fileId: c.v("fileId"))
        case "invalidForward": self = .invalidForward
        case "invalidChatItemUpdate": self = .invalidChatItemUpdate
        case "invalidChatItemDelete": self = .invalidChatItemDelete
        case "hasCurrentCall": self = .hasCurrentCall
        case "noCurrentCall": self = .noCurrentCall
        case "callContact": self = try .callContact(contactId: c.v("contactId"))
        case "directMessagesProhibited": self = try .directMessagesProhibited(direction: c.v("direction"), contact: c.v("contact"))
        case "agentVersion": self = .agentVersion
        case "agentNoSubResult": self = try .agentNoSubResult(agentConnId: c.v("agentConnId"))
        case "commandError": self = try .commandError(message: c.v("message"))
        case "agentCommandError": self = try .agentCommandError(message: c.v("message"))
        case "invalidFileDescription": self = try .invalidFileDescription(message: c.v("message"))
        case "connectionIncognitoChangeProhibited": self = .connectionIncognitoChangeProhibited
        case "connectionUserChangeProhibited": self = .connectionUserChangeProhibited
        case "peerChatVRangeIncompatible": self = .peerChatVRangeIncompatible
        case "internalError": self = try .internalError(message: c.v("message"))
        case "exception": self = try .exception(message: c.v("message"))
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
        case .noActiveUser: try c.tag("noActiveUser")
        case .noConnectionUser(let agentConnId):
            try c.tag("noConnectionUser")
            try c.put(agentConnId, "agentConnId")
        case .noSndFileUser(let agentSndFileId):
            try c.tag("noSndFileUser")
            try c.put(agentSndFileId, "agentSndFileId")
        case .noRcvFileUser(let agentRcvFileId):
            try c.tag("noRcvFileUser")
            try c.put(agentRcvFileId, "agentRcvFileId")
        case .userUnknown: try c.tag("userUnknown")
        case .userExists(let contactName):
            try c.tag("userExists")
            try c.put(contactName, "contactName")
        case .differentActiveUser(let commandUserId, let activeUserId):
            try c.tag("differentActiveUser")
            try c.put(commandUserId, "commandUserId")
            try c.put(activeUserId, "activeUserId")
        case .cantDeleteActiveUser(let userId):
            try c.tag("cantDeleteActiveUser")
            try c.put(userId, "userId")
        case .cantDeleteLastUser(let userId):
            try c.tag("cantDeleteLastUser")
            try c.put(userId, "userId")
        case .cantHideLastUser(let userId):
            try c.tag("cantHideLastUser")
            try c.put(userId, "userId")
        case .hiddenUserAlwaysMuted(let userId):
            try c.tag("hiddenUserAlwaysMuted")
            try c.put(userId, "userId")
        case .emptyUserPassword(let userId):
            try c.tag("emptyUserPassword")
            try c.put(userId, "userId")
        case .userAlreadyHidden(let userId):
            try c.tag("userAlreadyHidden")
            try c.put(userId, "userId")
        case .userNotHidden(let userId):
            try c.tag("userNotHidden")
            try c.put(userId, "userId")
        case .invalidDisplayName(let displayName, let validName):
            try c.tag("invalidDisplayName")
            try c.put(displayName, "displayName")
            try c.put(validName, "validName")
        case .chatNotStarted: try c.tag("chatNotStarted")
        case .chatNotStopped: try c.tag("chatNotStopped")
        case .chatStoreChanged: try c.tag("chatStoreChanged")
        case .invalidConnReq: try c.tag("invalidConnReq")
        case .unsupportedConnReq: try c.tag("unsupportedConnReq")
        case .connReqMessageProhibited: try c.tag("connReqMessageProhibited")
        case .contactNotReady(let contact):
            try c.tag("contactNotReady")
            try c.put(contact, "contact")
        case .contactNotActive(let contact):
            try c.tag("contactNotActive")
            try c.put(contact, "contact")
        case .contactDisabled(let contact):
            try c.tag("contactDisabled")
            try c.put(contact, "contact")
        case .connectionDisabled(let connection):
            try c.tag("connectionDisabled")
            try c.put(connection, "connection")
        case .groupUserRole(let groupInfo, let requiredRole):
            try c.tag("groupUserRole")
            try c.put(groupInfo, "groupInfo")
            try c.put(requiredRole, "requiredRole")
        case .groupMemberInitialRole(let groupInfo, let initialRole):
            try c.tag("groupMemberInitialRole")
            try c.put(groupInfo, "groupInfo")
            try c.put(initialRole, "initialRole")
        case .contactIncognitoCantInvite: try c.tag("contactIncognitoCantInvite")
        case .groupIncognitoCantInvite: try c.tag("groupIncognitoCantInvite")
        case .groupContactRole(let contactName):
            try c.tag("groupContactRole")
            try c.put(contactName, "contactName")
        case .groupDuplicateMember(let contactName):
            try c.tag("groupDuplicateMember")
            try c.put(contactName, "contactName")
        case .groupDuplicateMemberId: try c.tag("groupDuplicateMemberId")
        case .groupNotJoined(let groupInfo):
            try c.tag("groupNotJoined")
            try c.put(groupInfo, "groupInfo")
        case .groupMemberNotActive: try c.tag("groupMemberNotActive")
        case .cantBlockMemberForSelf(let groupInfo, let member, let setShowMessages):
            try c.tag("cantBlockMemberForSelf")
            try c.put(groupInfo, "groupInfo")
            try c.put(member, "member")
            try c.put(setShowMessages, "setShowMessages")
        case .groupMemberUserRemoved: try c.tag("groupMemberUserRemoved")
        case .groupMemberNotFound: try c.tag("groupMemberNotFound")
        case .groupCantResendInvitation(let groupInfo, let contactName):
            try c.tag("groupCantResendInvitation")
            try c.put(groupInfo, "groupInfo")
            try c.put(contactName, "contactName")
        case .groupInternal(let message):
            try c.tag("groupInternal")
            try c.put(message, "message")
        case .fileNotFound(let message):
            try c.tag("fileNotFound")
            try c.put(message, "message")
        case .fileSize(let filePath):
            try c.tag("fileSize")
            try c.put(filePath, "filePath")
        case .fileAlreadyReceiving(let message):
            try c.tag("fileAlreadyReceiving")
            try c.put(message, "message")
        case .fileCancelled(let message):
            try c.tag("fileCancelled")
            try c.put(message, "message")
        case .fileCancel(let fileId, let message):
            try c.tag("fileCancel")
            try c.put(fileId, "fileId")
            try c.put(message, "message")
        case .fileAlreadyExists(let filePath):
            try c.tag("fileAlreadyExists")
            try c.put(filePath, "filePath")
        case .fileWrite(let filePath, let message):
            try c.tag("fileWrite")
            try c.put(filePath, "filePath")
            try c.put(message, "message")
        case .fileSend(let fileId, let agentError):
            try c.tag("fileSend")
            try c.put(fileId, "fileId")
            try c.put(agentError, "agentError")
        case .fileRcvChunk(let message):
            try c.tag("fileRcvChunk")
            try c.put(message, "message")
        case .fileInternal(let message):
            try c.tag("fileInternal")
            try c.put(message, "message")
        case .fileImageType(let filePath):
            try c.tag("fileImageType")
            try c.put(filePath, "filePath")
        case .fileImageSize(let filePath):
            try c.tag("fileImageSize")
            try c.put(filePath, "filePath")
        case .fileNotReceived(let fileId):
            try c.tag("fileNotReceived")
            try c.put(fileId, "fileId")
        case .fileNotApproved(let fileId, let unknownServers):
            try c.tag("fileNotApproved")
            try c.put(fileId, "fileId")
            try c.put(unknownServers, "unknownServers")
        case .fallbackToSMPProhibited(let fileId):
            try c.tag("fallbackToSMPProhibited")
            try c.put(fileId, "fileId")
        case .inlineFileProhibited(let fileId):
            try c.tag("inlineFileProhibited")
            try c.put(fileId, "fileId")
        case .invalidForward: try c.tag("invalidForward")
        case .invalidChatItemUpdate: try c.tag("invalidChatItemUpdate")
        case .invalidChatItemDelete: try c.tag("invalidChatItemDelete")
        case .hasCurrentCall: try c.tag("hasCurrentCall")
        case .noCurrentCall: try c.tag("noCurrentCall")
        case .callContact(let contactId):
            try c.tag("callContact")
            try c.put(contactId, "contactId")
        case .directMessagesProhibited(let direction, let contact):
            try c.tag("directMessagesProhibited")
            try c.put(direction, "direction")
            try c.put(contact, "contact")
        case .agentVersion: try c.tag("agentVersion")
        case .agentNoSubResult(let agentConnId):
            try c.tag("agentNoSubResult")
            try c.put(agentConnId, "agentConnId")
        case .commandError(let message):
            try c.tag("commandError")
            try c.put(message, "message")
        case .agentCommandError(let message):
            try c.tag("agentCommandError")
            try c.put(message, "message")
        case .invalidFileDescription(let message):
            try c.tag("invalidFileDescription")
            try c.put(message, "message")
        case .connectionIncognitoChangeProhibited: try c.tag("connectionIncognitoChangeProhibited")
        case .connectionUserChangeProhibited: try c.tag("connectionUserChangeProhibited")
        case .peerChatVRangeIncompatible: try c.tag("peerChatVRangeIncompatible")
        case .internalError(let message):
            try c.tag("internalError")
            try c.put(message, "message")
        case .exception(let message):
            try c.tag("exception")
            try c.put(message, "message")
        case .unknown: break
        }
    }
}
