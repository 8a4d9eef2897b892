import Foundation
import GRDB

/// Mentions of group members (simplex-chat Library/Internal.hs `getCIMentions`,
/// `getRcvCIMentions`, `uniqueMsgMentions`): x.msg.new and x.msg.update carry `mentions`, a map
/// from the name used in the text (`@name`) to the member's ID; items keep them with the member
/// they name, and whether they mention us (`userMention`).
extension ChatController {
    /// At most this many mentions in a message we send (simplex-chat `maxSndMentions`).
    static let maxSndMentions = 3
    /// At most this many mentions of a received message are kept (`maxRcvMentions`); the rest are ignored.
    static let maxRcvMentions = 5

    /// The names mentioned in a text, in the order they appear (its markdown's `@name` fragments).
    nonisolated static func mentionedNames(_ text: String) -> [String] {
        (Markdown.parse(text) ?? []).compactMap { ft -> String? in
            if case .mention(let name)? = ft.format { return name }
            return nil
        }
    }

    /// The mentions of a message we send to a group, from `ComposedMessage.mentions` (name ->
    /// group member row ID): as simplex-chat's `getCIMentions`, each name must be used in the
    /// text, each member mentioned once, at most `maxSndMentions`, and every member in this
    /// group; otherwise the send is refused. Returns the wire map and the stored one (name ->
    /// member ID). A text without mentions sends none, whatever the map says.
    func sndMentions(_ g: GroupInfo, text: String, _ mentions: [String: Int64]) throws(ChatError)
        -> (wire: [String: MsgMention], stored: [String: String]) {
        let names = Set(Self.mentionedNames(text))
        guard !mentions.isEmpty, !names.isEmpty else { return ([:], [:]) }
        guard mentions.count <= Self.maxSndMentions, mentions.keys.allSatisfy(names.contains),
              Set(mentions.values).count == mentions.count else {
            throw .errorStore(storeError: .invalidMention)
        }
        var wire: [String: MsgMention] = [:]
        var stored: [String: String] = [:]
        for (name, gmId) in mentions {
            let m = try store.read { db in try self.groupMember(db, gmId) }
            guard let m, m.groupId == g.groupId, let memberId = MemberId(base64url: m.memberId) else {
                throw .errorStore(storeError: .groupMemberNotFound(groupMemberId: gmId))
            }
            wire[name] = MsgMention(memberId: memberId)
            stored[name] = m.memberId
        }
        return (wire, stored)
    }

    /// The mentions kept from a received message (simplex-chat `uniqueMsgMentions`): only names
    /// that appear in the text, in text order, each member once, at most `maxRcvMentions`. A
    /// mention of a member we do not know is kept by its member ID (shown without a member).
    nonisolated static func rcvMentions(text: String, _ mentions: [String: MsgMention]) -> [String: String] {
        guard !mentions.isEmpty else { return [:] }
        var kept: [String: String] = [:]
        var seen: Set<String> = []
        for name in mentionedNames(text) {
            if kept.count >= maxRcvMentions { break }
            guard let m = mentions[name], !seen.contains(m.memberId.base64url) else { continue }
            kept[name] = m.memberId.base64url
            seen.insert(m.memberId.base64url)
        }
        return kept
    }

    /// Whether a received item is for us: it mentions us, or replies to one of our messages
    /// (simplex-chat `userMention` in `saveRcvChatItem'`).
    nonisolated static func mentionsUser(_ g: GroupInfo, mentions: [String: String], quotedMemberId: String?) -> Bool {
        quotedMemberId == g.membership.memberId || mentions.values.contains(g.membership.memberId)
    }

    /// An item's mentions as the API shows them (CIMention): the member they name, when known.
    nonisolated func itemMentions(_ db: Database, _ itemId: Int64, groupId: Int64?) throws -> [String: CIMention] {
        guard let groupId else { return [:] }
        var out: [String: CIMention] = [:]
        for (name, memberId) in try db.itemMentions(itemId) {
            let m = try groupMember(db, groupId: groupId, memberId: memberId)
            out[name] = CIMention(memberId: memberId, memberRef: m.map {
                CIMentionMember(groupMemberId: $0.groupMemberId, displayName: $0.memberProfile.profile.displayName,
                                localAlias: $0.memberProfile.localAlias, memberRole: $0.memberRole)
            })
        }
        return out
    }
}

extension ChatController {
    /// Puts a composed message's mentions on its prepared item (wire and row); the quote of one
    /// of our own messages makes no `userMention` for a sent item.
    func addMentions(_ p: inout PreparedItem, _ g: GroupInfo, _ mentions: [String: Int64]) throws(ChatError) {
        let (wire, stored) = try sndMentions(g, text: p.container.content.text, mentions)
        p.container.mentions = wire
        p.item.mentions = stored
    }
}
