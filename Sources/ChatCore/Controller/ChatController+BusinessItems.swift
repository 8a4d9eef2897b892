import Foundation
import GRDB

/// The items simplex-chat puts in a new business chat: the end-to-end encryption notice and one
/// item per group feature (`createGroupFeatureItems`, with `CISndGroupE2EEInfo`/`CIRcvGroupE2EEInfo`),
/// and the customer's request message (`createRequestItem`).
extension ChatController {
    /// The features simplex-chat makes an item for (`allGroupFeatures`), with each one's state as
    /// `groupFeatureState` gives it: the parameter and role only when the feature is on.
    static func groupFeatureStates(_ p: FullGroupPreferences) -> [(GroupFeature, GroupFeatureEnabled, Int?, GroupMemberRole?)] {
        func on(_ e: GroupFeatureEnabled) -> Bool { e == .on }
        return [
            (.timedMessages, p.timedMessages.enable, on(p.timedMessages.enable) ? p.timedMessages.ttl : nil, nil),
            (.directMessages, p.directMessages.enable, nil, on(p.directMessages.enable) ? p.directMessages.role : nil),
            (.fullDelete, p.fullDelete.enable, nil, nil),
            (.reactions, p.reactions.enable, nil, nil),
            (.voice, p.voice.enable, nil, on(p.voice.enable) ? p.voice.role : nil),
            (.files, p.files.enable, nil, on(p.files.enable) ? p.files.role : nil),
            (.simplexLinks, p.simplexLinks.enable, nil, on(p.simplexLinks.enable) ? p.simplexLinks.role : nil),
            (.reports, p.reports.enable, nil, nil),
            (.history, p.history.enable, nil, nil),
        ]
    }

    /// simplex-chat `groupFeatureNameText` (the item's text starts with it).
    static func groupFeatureName(_ f: GroupFeature) -> String {
        switch f {
        case .timedMessages: "Disappearing messages"
        case .directMessages: "Direct messages"
        case .fullDelete: "Delete for everyone"
        case .reactions: "Message reactions"
        case .voice: "Voice messages"
        case .files: "Files and media"
        case .simplexLinks: "SimpleX links"
        case .reports: "Member reports"
        case .history: "Recent history"
        case .sessions: "Sessions"
        }
    }

    /// The e2e notice and the feature items of a new group chat: sent (`sent`, our side made the
    /// chat) or received from `memberGmId`. A prepared chat has its feature items already
    /// (`features` false) and gets the notice only when connected (`e2e` false before).
    @discardableResult
    func createNewChatItems(userId: Int64, groupId: Int64, memberGmId: Int64?, sent: Bool, e2e: Bool = true,
                            features: Bool = true) throws(ChatError) -> [Int64] {
        let g = try groupInfo(groupId)
        let info = E2EInfo(pqEnabled: false)
        var ids: [Int64] = []
        if e2e {
            ids.append(try insertItem(userId: userId, groupId: groupId, memberGmId: memberGmId, sent: sent,
                                      content: sent ? .sndGroupE2EEInfo(e2eeInfo: info) : .rcvGroupE2EEInfo(e2eeInfo: info),
                                      text: "messages are end-to-end encrypted"))
        }
        guard features else { return ids }
        for (f, enable, param, role) in Self.groupFeatureStates(g.fullGroupPreferences) {
            let pref = GroupPreference(enable: enable)
            let content: CIContent = sent
                ? .sndGroupFeature(groupFeature: f, preference: pref, param: param, memberRole_: role)
                : .rcvGroupFeature(groupFeature: f, preference: pref, param: param, memberRole_: role)
            let text = Self.groupFeatureName(f) + ": " + enable.rawValue + (role.map { " for \($0.rawValue)s" } ?? "")
            ids.append(try insertItem(userId: userId, groupId: groupId, memberGmId: memberGmId, sent: sent, content: content, text: text))
        }
        return ids
    }

    /// The message a customer sent with its request (x.contact `msgId`/`content`), as the
    /// customer's first item in the business chat (simplex-chat `createRequestItem`).
    func createRequestItem(user: User, groupId: Int64, customerGmId: Int64, _ request: ChatMsgEvent.RequestMsg) throws(ChatError) -> Int64 {
        try insertItem(userId: user.userId, groupId: groupId, memberGmId: customerGmId, sent: false,
                       content: .rcvMsgContent(msgContent: request.content), text: request.content.text,
                       shared: request.msgId.base64url, status: .rcvNew)
    }
}
