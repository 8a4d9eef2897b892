import Foundation
import Testing

@testable import ChatCore

/// ChatResponse / ChatEvent records as COMMANDS.md and EVENTS.md list them, and the envelopes
/// they travel in.
@Suite struct ResponseEventTests {
    static let user = Fx.user

    static let responses: [JSONFixture] = [
        JSONFixture("activeUser", ChatResponse.self, #"{"type":"activeUser","user":\#(user)}"#),
        JSONFixture("usersList", ChatResponse.self, #"{"type":"usersList","users":[{"user":\#(user),"unreadCount":0}]}"#),
        JSONFixture("chatStarted", ChatResponse.self, #"{"type":"chatStarted"}"#),
        JSONFixture("chatRunning", ChatResponse.self, #"{"type":"chatRunning"}"#),
        JSONFixture("chatStopped", ChatResponse.self, #"{"type":"chatStopped"}"#),
        JSONFixture("invitation", ChatResponse.self, #"{"type":"invitation","user":\#(user),"connLinkInvitation":{"connFullLink":"simplex:/invitation#/?v=2-7&smp=x"},"connection":\#(Fx.pcc)}"#),
        JSONFixture("connectionPlan", ChatResponse.self, #"{"type":"connectionPlan","user":\#(user),"connLink":{"connFullLink":"simplex:/contact#/?v=2-7&smp=x"},"connectionPlan":{"type":"contactAddress","contactAddressPlan":{"type":"ownLink"}}}"#),
        JSONFixture("sentConfirmation", ChatResponse.self, #"{"type":"sentConfirmation","user":\#(user),"connection":\#(Fx.pcc),"customUserProfile":{"displayName":"anon","fullName":""}}"#),
        JSONFixture("sentInvitation", ChatResponse.self, #"{"type":"sentInvitation","user":\#(user),"connection":\#(Fx.pcc)}"#),
        JSONFixture("contactAlreadyExists", ChatResponse.self, #"{"type":"contactAlreadyExists","user":\#(user),"contact":\#(Fx.contact)}"#),
        JSONFixture("acceptingContactRequest", ChatResponse.self, #"{"type":"acceptingContactRequest","user":\#(user),"contact":\#(Fx.contact)}"#),
        JSONFixture("contactRequestRejected", ChatResponse.self, #"{"type":"contactRequestRejected","user":\#(user),"contactRequest":\#(Fx.contactRequest)}"#),
        JSONFixture("connectionIncognitoUpdated", ChatResponse.self, #"{"type":"connectionIncognitoUpdated","user":\#(user),"toConnection":\#(Fx.pcc)}"#),
        JSONFixture("userContactLinkCreated", ChatResponse.self, #"{"type":"userContactLinkCreated","user":\#(user),"connLinkContact":{"connFullLink":"simplex:/contact#/?v=2-7&smp=x","connShortLink":"https://h.im/a#k"}}"#),
        JSONFixture("userContactLinkDeleted", ChatResponse.self, #"{"type":"userContactLinkDeleted","user":\#(user)}"#),
        JSONFixture("userContactLink", ChatResponse.self, #"{"type":"userContactLink","user":\#(user),"contactLink":{"userContactLinkId":1,"connLinkContact":{"connFullLink":"f"},"shortLinkDataSet":false,"shortLinkLargeDataSet":false,"addressSettings":{"businessAddress":false}}}"#),
        JSONFixture("userProfileUpdated", ChatResponse.self, #"{"type":"userProfileUpdated","user":\#(user),"fromProfile":{"displayName":"a","fullName":""},"toProfile":{"displayName":"b","fullName":""},"updateSummary":{"updateSuccesses":1,"updateFailures":0,"changedContacts":[\#(Fx.contact)]}}"#),
        JSONFixture("userProfileNoChange", ChatResponse.self, #"{"type":"userProfileNoChange","user":\#(user)}"#),
        JSONFixture("newChatItems", ChatResponse.self, #"{"type":"newChatItems","user":\#(user),"chatItems":[\#(Fx.aSentItem)]}"#),
        JSONFixture("chatItemUpdated", ChatResponse.self, #"{"type":"chatItemUpdated","user":\#(user),"chatItem":\#(Fx.aSentItem)}"#),
        JSONFixture("chatItemNotChanged", ChatResponse.self, #"{"type":"chatItemNotChanged","user":\#(user),"chatItem":\#(Fx.aSentItem)}"#),
        JSONFixture("chatItemsDeleted", ChatResponse.self, #"{"type":"chatItemsDeleted","user":\#(user),"chatItemDeletions":[{"deletedChatItem":\#(Fx.aSentItem)}],"byUser":true,"timed":false}"#),
        JSONFixture("forwardPlan", ChatResponse.self, #"{"type":"forwardPlan","user":\#(user),"itemsCount":2,"chatItemIds":[10,11],"forwardConfirmation":{"type":"filesNotAccepted","fileIds":[3]}}"#),
        JSONFixture("apiChats", ChatResponse.self, #"{"type":"apiChats","user":\#(user),"chats":[{"chatInfo":\#(Fx.directInfo),"chatItems":[],"chatStats":{"unreadCount":0,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":0,"unreadChat":false}}]}"#),
        JSONFixture("apiChat", ChatResponse.self, #"{"type":"apiChat","user":\#(user),"chat":{"chatInfo":\#(Fx.directInfo),"chatItems":[\#(Fx.chatItem)],"chatStats":{"unreadCount":1,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":10,"unreadChat":false}},"navInfo":{"afterUnread":0,"afterTotal":0}}"#),
        JSONFixture("contactsList", ChatResponse.self, #"{"type":"contactsList","user":\#(user),"contacts":[\#(Fx.contact)]}"#),
        JSONFixture("contactDeleted", ChatResponse.self, #"{"type":"contactDeleted","user":\#(user),"contact":\#(Fx.contact)}"#),
        JSONFixture("cmdOk", ChatResponse.self, #"{"type":"cmdOk","user_":\#(user)}"#),
        JSONFixture("cmdOk no user", ChatResponse.self, #"{"type":"cmdOk"}"#),
        JSONFixture("userServers", ChatResponse.self, #"{"type":"userServers","user":\#(user),"userServers":[{"operator":{"operatorId":1,"tradeName":"SimpleX Chat"},"smpServers":[{"serverId":1,"server":"smp://a@smp.example.com","preset":true,"tested":true,"enabled":true,"deleted":false}],"xftpServers":[]}]}"#),
        JSONFixture("serverTestResult", ChatResponse.self, #"{"type":"serverTestResult","user":\#(user),"testServer":"smp://a@b","testFailure":{"testStep":"connect","testError":{"type":"BROKER","brokerAddress":"smp://a@b","brokerErr":{"type":"TIMEOUT"}}}}"#),
        JSONFixture("chatCmdError", ChatResponse.self, #"{"type":"chatCmdError","chatError":{"type":"error","errorType":{"type":"noActiveUser"}}}"#),
    ]

    static let events: [JSONFixture] = [
        JSONFixture("contactConnected", ChatEvent.self, #"{"type":"contactConnected","user":\#(user),"contact":\#(Fx.contact),"userCustomProfile":{"displayName":"x","fullName":""}}"#),
        JSONFixture("contactSndReady", ChatEvent.self, #"{"type":"contactSndReady","user":\#(user),"contact":\#(Fx.contact)}"#),
        JSONFixture("contactConnecting", ChatEvent.self, #"{"type":"contactConnecting","user":\#(user),"contact":\#(Fx.contact)}"#),
        JSONFixture("acceptingContactRequest", ChatEvent.self, #"{"type":"acceptingContactRequest","user":\#(user),"contact":\#(Fx.contact)}"#),
        JSONFixture("receivedContactRequest", ChatEvent.self, #"{"type":"receivedContactRequest","user":\#(user),"contactRequest":\#(Fx.contactRequest),"chat_":{"chatInfo":{"type":"contactRequest","contactRequest":\#(Fx.contactRequest)},"chatItems":[],"chatStats":{"unreadCount":0,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":0,"unreadChat":true}}}"#),
        JSONFixture("contactUpdated", ChatEvent.self, #"{"type":"contactUpdated","user":\#(user),"fromContact":\#(Fx.contact),"toContact":\#(Fx.contact)}"#),
        JSONFixture("contactDeletedByContact", ChatEvent.self, #"{"type":"contactDeletedByContact","user":\#(user),"contact":\#(Fx.contact)}"#),
        JSONFixture("newChatItems", ChatEvent.self, #"{"type":"newChatItems","user":\#(user),"chatItems":[\#(Fx.aChatItem)]}"#),
        JSONFixture("chatItemUpdated", ChatEvent.self, #"{"type":"chatItemUpdated","user":\#(user),"chatItem":\#(Fx.aChatItem)}"#),
        JSONFixture("chatItemsDeleted", ChatEvent.self, #"{"type":"chatItemsDeleted","user":\#(user),"chatItemDeletions":[{"deletedChatItem":\#(Fx.aChatItem),"toChatItem":\#(Fx.aChatItem)}],"byUser":false,"timed":false}"#),
        JSONFixture("chatItemReaction", ChatEvent.self, #"{"type":"chatItemReaction","user":\#(user),"added":true,"reaction":{"chatInfo":\#(Fx.directInfo),"chatReaction":{"chatDir":{"type":"directRcv"},"chatItem":\#(Fx.sentItem),"sentAt":"\#(Fx.ts2)","reaction":{"type":"emoji","emoji":"🚀"}}}}"#),
        JSONFixture("chatItemsStatusesUpdated", ChatEvent.self, #"{"type":"chatItemsStatusesUpdated","user":\#(user),"chatItems":[\#(Fx.aSentItem)]}"#),
        JSONFixture("hostConnected", ChatEvent.self, #"{"type":"hostConnected","protocol":"smp","transportHost":"smp.example.com"}"#),
        JSONFixture("hostDisconnected", ChatEvent.self, #"{"type":"hostDisconnected","protocol":"xftp","transportHost":"xftp.example.com"}"#),
        JSONFixture("subscriptionStatus", ChatEvent.self, #"{"type":"subscriptionStatus","server":"smp://a@b","subscriptionStatus":{"type":"removed","subError":"AUTH"},"connections":["YQ","Yg"]}"#),
        JSONFixture("messageError", ChatEvent.self, #"{"type":"messageError","user":\#(user),"severity":"warning","errorMessage":"duplicate"}"#),
        JSONFixture("chatError", ChatEvent.self, #"{"type":"chatError","chatError":{"type":"errorStore","storeError":{"type":"contactNotFound","contactId":3}}}"#),
        JSONFixture("chatErrors", ChatEvent.self, #"{"type":"chatErrors","chatErrors":[{"type":"errorAgent","agentError":{"type":"INACTIVE"},"agentConnId":""}]}"#),
    ]

    @Test(arguments: responses)
    func responsesRoundTrip(_ f: JSONFixture) throws {
        #expect(try canonicalJSON(f.check(f.json)) == canonicalJSON(f.json))
    }

    @Test(arguments: events)
    func eventsRoundTrip(_ f: JSONFixture) throws {
        #expect(try canonicalJSON(f.check(f.json)) == canonicalJSON(f.json))
    }

    @Test func jsonStringIsCompactAndTagged() throws {
        let r = ChatResponse.chatStopped
        #expect(r.jsonString() == #"{"type":"chatStopped"}"#)
        #expect(r.resultJSONString() == #"{"result":{"type":"chatStopped"}}"#)
        let e = ChatEvent.hostConnected(protocol: "smp", transportHost: "h")
        #expect(e.jsonString() == #"{"protocol":"smp","transportHost":"h","type":"hostConnected"}"#)
        #expect(!e.jsonString().contains("\n"))
        let err = ChatError.error(errorType: .chatNotStarted)
        #expect(err.jsonString() == #"{"errorType":{"type":"chatNotStarted"},"type":"error"}"#)
        #expect(err.errorJSONString() == #"{"error":{"errorType":{"type":"chatNotStarted"},"type":"error"}}"#)
    }

    @Test func apiResultEnvelopes() throws {
        let user = try ChatJSON.decode(User.self, from: Fx.user)
        let ok = APIResult<ChatResponse>.result(.activeUser(user: user))
        try expectEncodes(ok, #"{"result":{"type":"activeUser","user":\#(Fx.user)}}"#)
        let remote = APIResult<ChatResponse>.result(.chatStarted, remoteHostId: 2)
        try expectEncodes(remote, #"{"remoteHostId":2,"result":{"type":"chatStarted"}}"#)
        let decoded = try ChatJSON.decode(APIResult<ChatEvent>.self, from: #"{"error":{"type":"error","errorType":{"type":"noActiveUser"}}}"#)
        #expect(decoded == .error(.error(errorType: .noActiveUser)))
        let ev = try ChatJSON.decode(APIResult<ChatEvent>.self, from: #"{"result":{"type":"hostConnected","protocol":"smp","transportHost":"h"}}"#)
        #expect(ev == .result(.hostConnected(protocol: "smp", transportHost: "h")))
    }

    @Test func webSocketEnvelopeKeepsLegacyErrorForm() throws {
        let err = ChatError.commandError("bad")
        try expectEncodes(
            ChatSrvResponse(corrId: "7", response: .failure(err)),
            #"{"corrId":"7","resp":{"type":"chatCmdError","chatError":{"type":"error","errorType":{"type":"commandError","message":"bad"}}}}"#)
        try expectEncodes(
            ChatSrvResponse(event: .failure(err)),
            #"{"resp":{"type":"chatError","chatError":{"type":"error","errorType":{"type":"commandError","message":"bad"}}}}"#)
        try expectEncodes(ChatSrvResponse(corrId: "1", response: .success(.chatStarted)), #"{"corrId":"1","resp":{"type":"chatStarted"}}"#)
        let req = try ChatJSON.decode(ChatSrvRequest.self, from: #"{"corrId":"1","cmd":"/users"}"#)
        #expect(ChatCommand.parse(req.cmd) == .success(.listUsers))
    }

    @Test func unknownResponseAndEventTagsAreKept() throws {
        let r = try expectRoundTrip(ChatResponse.self, #"{"type":"callInvitations","user":{"userId":1},"callInvitations":[]}"#)
        guard case .unknown = r else {
            Issue.record("expected unknown response")
            return
        }
        let e = try expectRoundTrip(ChatEvent.self, #"{"type":"callInvitation","callInvitation":{"x":1}}"#)
        guard case .unknown = e else {
            Issue.record("expected unknown event")
            return
        }
    }
}
