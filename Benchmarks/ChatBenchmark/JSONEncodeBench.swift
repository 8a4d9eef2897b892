import ChatCore
import Foundation

/// `chat-bench --json-only`: the cost of encoding one API event (a newChatItems event with a
/// contact, as every received message produces) with ChatJSON and with Foundation's JSONEncoder,
/// in the same run; the two outputs must be the same bytes.
enum JSONEncodeBench {
    static func run(iterations: Int) throws {
        let event = try ChatJSON.decode(ChatEvent.self, from: BenchFx.newChatItems)
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let ours = try ChatJSON.encode(event)
        let theirs = try foundation.encode(event)
        guard ours == theirs else {
            throw EncodeMismatch(ours: String(decoding: ours, as: UTF8.self), theirs: String(decoding: theirs, as: UTF8.self))
        }
        let memo = JSONFragmentMemo()
        guard try ChatJSON.encode(event, memo: memo) == theirs, try ChatJSON.encode(event, memo: memo) == theirs else {
            throw EncodeMismatch(ours: "(with the memo)", theirs: String(decoding: theirs, as: UTF8.self))
        }
        print("== JSON encoding of a newChatItems event with a contact (\(ours.count) bytes), \(iterations) times")
        for round in 1...2 {
            let a = try time(iterations) { _ = try ChatJSON.encode(event) }
            let m = try time(iterations) { _ = try ChatJSON.encode(event, memo: memo) }
            let b = try time(iterations) { _ = try foundation.encode(event) }
            print(String(format: "  round %d: ChatJSON.encode %.1f us per event (%.1f with the event queue's memo of user, profiles, connection, preferences), JSONEncoder %.1f us per event (%.2fx)",
                         round, a, m, b, b / a))
        }
    }

    /// Microseconds per call.
    static func time(_ n: Int, _ body: () throws -> Void) throws -> Double {
        let s = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<n { try body() }
        return Double(DispatchTime.now().uptimeNanoseconds - s) / 1e3 / Double(n)
    }

    struct EncodeMismatch: Error, CustomStringConvertible {
        let ours: String
        let theirs: String
        var description: String { "ChatJSON.encode differs from JSONEncoder:\n\(ours)\n\(theirs)" }
    }
}

/// The chat core tests' JSON fixtures (Tests/ChatCoreTests/Fixtures.swift), for a realistic event.
enum BenchFx {
    static let ts = "2024-05-01T10:00:00.123456Z"
    static let ts2 = "2024-05-01T10:00:01Z"

    static let profile = #"{"displayName":"alice","fullName":"Alice A","shortDescr":"hi","image":"data:image/png;base64,AAAA","contactLink":"https://simplex.chat/contact#/?v=2","preferences":{"timedMessages":{"allow":"yes","ttl":86400},"reactions":{"allow":"always"}},"peerType":"human"}"#

    static func localProfile(_ id: Int, _ name: String) -> String {
        #"{"profileId":\#(id),"displayName":"\#(name)","fullName":"","localAlias":""}"#
    }

    static let fullPreferences = #"{"timedMessages":{"allow":"yes"},"fullDelete":{"allow":"no"},"reactions":{"allow":"yes"},"voice":{"allow":"yes"},"files":{"allow":"always"},"calls":{"allow":"yes"},"sessions":{"allow":"no"},"commands":[]}"#

    static let user = #"{"userId":1,"agentUserId":"1","userContactId":1,"localDisplayName":"alice","profile":\#(localProfile(1, "alice")),"fullPreferences":\#(fullPreferences),"activeUser":true,"activeOrder":1,"showNtfs":true,"sendRcptsContacts":true,"sendRcptsSmallGroups":true,"autoAcceptMemberContacts":false,"clientService":false}"#

    static let connection = #"{"connId":5,"agentConnId":"YWJjZA","connChatVersion":14,"peerChatVRange":{"minVersion":1,"maxVersion":14},"connLevel":0,"viaGroupLink":false,"connType":"contact","connStatus":"ready","contactConnInitiated":true,"localAlias":"","entityId":2,"pqSupport":true,"pqEncryption":true,"pqSndEnabled":true,"pqRcvEnabled":true,"authErrCounter":0,"quotaErrCounter":0,"createdAt":"\#(ts)"}"#

    static let cup = #"{"enabled":{"forUser":true,"forContact":true},"userPreference":{"type":"user","preference":{"allow":"yes"}},"contactPreference":{"allow":"yes"}}"#
    static let cupContact = #"{"enabled":{"forUser":false,"forContact":false},"userPreference":{"type":"contact","preference":{"allow":"no"}},"contactPreference":{"allow":"yes"}}"#
    static let merged = #"{"timedMessages":\#(cup),"fullDelete":\#(cupContact),"reactions":\#(cup),"voice":\#(cup),"files":\#(cup),"calls":\#(cup),"sessions":\#(cupContact)}"#

    static let contact = #"{"contactId":2,"localDisplayName":"bob","profile":\#(localProfile(3, "bob")),"activeConn":\#(connection),"contactUsed":true,"contactStatus":"active","chatSettings":{"enableNtfs":"all","favorite":false},"userPreferences":{},"mergedPreferences":\#(merged),"createdAt":"\#(ts)","updatedAt":"\#(ts2)","chatTs":"\#(ts2)","contactGrpInvSent":false,"chatTags":[],"chatDeleted":false}"#

    static let pcc = #"{"pccConnId":7,"pccAgentConnId":"cGNj","pccConnStatus":"new","viaContactUri":false,"connLinkInv":{"connFullLink":"simplex:/invitation#/?v=2-7&smp=x","connShortLink":"https://smp.example.com/i#abc/def"},"localAlias":"","createdAt":"\#(ts)","updatedAt":"\#(ts)"}"#

    static let contactRequest = #"{"contactRequestId":4,"agentInvitationId":"aW52","userContactLinkId_":1,"cReqChatVRange":{"minVersion":1,"maxVersion":14},"localDisplayName":"carol","profileId":9,"profile":{"displayName":"carol","fullName":""},"createdAt":"\#(ts)","updatedAt":"\#(ts)","xContactId":"eGM","pqSupport":true}"#

    static let member = #"{"groupMemberId":7,"groupId":1,"indexInGroup":2,"memberId":"bWVt","memberRole":"member","memberCategory":"invitee","memberStatus":"connected","memberSettings":{"showMessages":true},"blockedByAdmin":false,"invitedBy":{"type":"contact","byContactId":2},"localDisplayName":"carol","memberProfile":\#(localProfile(9, "carol")),"memberContactProfileId":9,"memberChatVRange":{"minVersion":1,"maxVersion":14},"createdAt":"\#(ts)","updatedAt":"\#(ts)"}"#

    static let fullGroupPreferences = #"{"timedMessages":{"enable":"off"},"directMessages":{"enable":"on"},"fullDelete":{"enable":"off"},"reactions":{"enable":"on"},"voice":{"enable":"on","role":"member"},"files":{"enable":"on"},"simplexLinks":{"enable":"on"},"reports":{"enable":"on"},"history":{"enable":"on"},"sessions":{"enable":"off"},"commands":[]}"#

    static let groupInfo = #"{"groupId":1,"useRelays":false,"localDisplayName":"team","groupProfile":{"displayName":"team","fullName":"","description":"our team"},"localAlias":"","fullGroupPreferences":\#(fullGroupPreferences),"membership":\#(member),"chatSettings":{"enableNtfs":"mentions","sendRcpts":false,"favorite":true},"createdAt":"\#(ts)","updatedAt":"\#(ts)","chatTags":[1,2],"groupSummary":{"currentMembers":3},"membersRequireAttention":0}"#

    static func meta(_ id: Int, _ text: String, status: String = #"{"type":"rcvRead"}"#) -> String {
        #"{"itemId":\#(id),"itemTs":"\#(ts2)","itemText":"\#(text)","itemStatus":\#(status),"itemSharedMsgId":"c2hhcmVk","itemEdited":false,"userMention":false,"deletable":true,"editable":false,"showGroupAsSender":false,"createdAt":"\#(ts2)","updatedAt":"\#(ts2)"}"#
    }

    static let chatItem = #"{"chatDir":{"type":"directRcv"},"meta":\#(meta(10, "hello *world*")),"content":{"type":"rcvMsgContent","msgContent":{"type":"text","text":"hello *world*"}},"mentions":{},"formattedText":[{"text":"hello "},{"format":{"type":"bold"},"text":"world"}],"reactions":[{"reaction":{"type":"emoji","emoji":"👍"},"userReacted":false,"totalReacted":1}]}"#

    static let sentItem = #"{"chatDir":{"type":"directSnd"},"meta":\#(meta(11, "hi", status: #"{"type":"sndSent","sndProgress":"complete"}"#)),"content":{"type":"sndMsgContent","msgContent":{"type":"text","text":"hi"}},"mentions":{},"quotedItem":{"chatDir":{"type":"directRcv"},"itemId":10,"sentAt":"\#(ts2)","content":{"type":"text","text":"hello *world*"},"formattedText":[{"text":"hello "},{"format":{"type":"bold"},"text":"world"}]},"reactions":[]}"#

    static let directInfo = #"{"type":"direct","contact":\#(contact)}"#
    static let aChatItem = #"{"chatInfo":\#(directInfo),"chatItem":\#(chatItem)}"#
    static let aSentItem = #"{"chatInfo":\#(directInfo),"chatItem":\#(sentItem)}"#
    static let newChatItems = #"{"type":"newChatItems","user":\#(user),"chatItems":[\#(aChatItem)]}"#
}
