import Foundation
import GRDB

/// Group feature states and names for the items of new chats (ChatController+NewChatItems.swift),
/// and the customer's request message in a business chat (`createRequestItem`).
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

    /// The message a customer sent with its request (x.contact `msgId`/`content`), as the
    /// customer's first item in the business chat (simplex-chat `createRequestItem`).
    func createRequestItem(user: User, groupId: Int64, customerGmId: Int64, _ request: ChatMsgEvent.RequestMsg) throws(ChatError) -> Int64 {
        try insertItem(userId: user.userId, groupId: groupId, memberGmId: customerGmId, sent: false,
                       content: .rcvMsgContent(msgContent: request.content), text: request.content.text,
                       shared: request.msgId.base64url, status: .rcvNew)
    }
}
