import Foundation
import GRDB
import SMPAgent

/// Queries behind connection plans: whether a pasted link is one of ours, a contact or group we
/// know, or a connection already under way (simplex-chat Store/Direct.hs and Store/Groups.hs
/// `getContactViaShortLinkToConnect`, `getGroupInfoByGroupLinkHash`, ...).
extension Database {
    /// An invitation we created or our own address, by its full link.
    func isOwnFullLink(_ link: String) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM connections WHERE conn_link_inv = ?"), arguments: [link]) == true
            || Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM user_contact_links WHERE conn_link = ?"), arguments: [link]) == true
    }

    /// The active contact whose profile carries this address.
    func activeContactId(userId: Int64, contactLink: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: """
            SELECT c.contact_id FROM contacts c JOIN contact_profiles p ON p.profile_id = c.profile_id
            WHERE c.user_id = ? AND c.contact_status = 'active' AND p.contact_link = ?
            """), arguments: [userId, contactLink])
    }

    /// A connection we started through this link: nil when none, else its contact (nil while none).
    func connectionViaLink(userId: Int64, link: String) throws -> (found: Bool, contactId: Int64?) {
        guard let r = try Row.fetchOne(cachedStatement(sql: "SELECT contact_id FROM connections WHERE user_id = ? AND via_link = ?"),
                                       arguments: [userId, link]) else { return (false, nil) }
        return (true, r["contact_id"])
    }

    /// The group whose own link (full form) this is.
    func groupIdOwningLink(userId: Int64, connLink: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT group_id FROM group_links WHERE user_id = ? AND conn_link = ?"), arguments: [userId, connLink])
    }

    /// The latest group we joined (or are joining) through this link.
    func groupIdJoinedViaLink(userId: Int64, link: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT group_id FROM groups WHERE user_id = ? AND via_group_link_uri = ? ORDER BY group_id DESC"),
                           arguments: [userId, link])
    }

    /// A group join through this link that has not become a member connection yet.
    func hasPendingGroupJoin(userId: Int64, link: String) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: """
            SELECT 1 FROM connections WHERE user_id = ? AND via_link = ? AND group_member_id IS NULL AND contact_id IS NULL
            """), arguments: [userId, link]) == true
    }

    /// Which of our links a short link is: a group's, our address, or an invitation (nil: not ours).
    func ownShortLink(userId: Int64, _ short: String) throws -> (mode: ConnectionMode, groupId: Int64?)? {
        if let gid = try Int64.fetchOne(cachedStatement(sql: "SELECT group_id FROM group_links WHERE user_id = ? AND short_link = ?"), arguments: [userId, short]) {
            return (.contact, gid)
        }
        if try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM user_contact_links WHERE user_id = ? AND short_link = ?"), arguments: [userId, short]) == true {
            return (.contact, nil)
        }
        if try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM connections WHERE user_id = ? AND short_link_inv = ?"), arguments: [userId, short]) == true {
            return (.invitation, nil)
        }
        return nil
    }

    /// The full form of one of our short links.
    func ownFullLink(userId: Int64, short: String) throws -> String? {
        try String.fetchOne(cachedStatement(sql: """
            SELECT conn_link FROM group_links WHERE user_id = ?1 AND short_link = ?2
            UNION ALL SELECT conn_link FROM user_contact_links WHERE user_id = ?1 AND short_link = ?2
            UNION ALL SELECT conn_link_inv FROM connections WHERE user_id = ?1 AND short_link_inv = ?2
            """), arguments: [userId, short])
    }
}
