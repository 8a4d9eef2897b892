import Foundation
import GRDB

/// Profiles of users, contacts and members, stored whole: preferences, peer type and short
/// description included (issue 14), so what the API returns is what was set or received.
extension Database {
    /// A peer's profile (contact, contact request, member); returns its profile id.
    func insertContactProfile(userId: Int64, _ p: Profile, at now: Double) throws -> Int64 {
        try cachedStatement(sql: """
            INSERT INTO contact_profiles (user_id, display_name, full_name, short_descr, image, contact_link, preferences, peer_type, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [userId, p.displayName, p.fullName, p.shortDescr, p.image, p.contactLink,
                                     try p.preferences.map { try ChatJSON.string($0) }, p.peerType?.rawValue, now])
        return lastInsertedRowID
    }

    /// The peer sent a new profile (x.info, x.info.mem); the local alias stays.
    func updateContactProfile(profileId: Int64, _ p: Profile) throws {
        try cachedStatement(sql: """
            UPDATE contact_profiles SET display_name = ?, full_name = ?, short_descr = ?, image = ?, contact_link = ?, preferences = ?, peer_type = ?
            WHERE profile_id = ?
            """).execute(arguments: [p.displayName, p.fullName, p.shortDescr, p.image, p.contactLink,
                                     try p.preferences.map { try ChatJSON.string($0) }, p.peerType?.rawValue, profileId])
    }

    func contactProfileId(contactId: Int64) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT profile_id FROM contacts WHERE contact_id = ?"), arguments: [contactId])
    }

    /// A new user, active from now on; returns its id.
    func insertUser(localDisplayName: String, _ p: Profile, activeOrder: Int64, at now: Double) throws -> Int64 {
        try execute(sql: "UPDATE users SET active_user = 0")
        try cachedStatement(sql: """
            INSERT INTO users (local_display_name, display_name, full_name, short_descr, image, contact_link, preferences, peer_type,
              profile_id, active_user, active_order, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 1, ?, ?)
            """).execute(arguments: [localDisplayName, p.displayName, p.fullName, p.shortDescr, p.image, p.contactLink,
                                     try p.preferences.map { try ChatJSON.string($0) }, p.peerType?.rawValue, activeOrder, now])
        let id = lastInsertedRowID
        try cachedStatement(sql: "UPDATE users SET profile_id = ? WHERE user_id = ?").execute(arguments: [id, id])
        return id
    }

    func updateUserProfile(userId: Int64, localDisplayName: String, _ p: Profile) throws {
        try markUserMemberProfileUpdated(userId: userId, at: Date().timeIntervalSince1970)
        try cachedStatement(sql: """
            UPDATE users SET local_display_name = ?, display_name = ?, full_name = ?, short_descr = ?, image = ?, contact_link = ?,
              preferences = ?, peer_type = ?
            WHERE user_id = ?
            """).execute(arguments: [localDisplayName, p.displayName, p.fullName, p.shortDescr, p.image, p.contactLink,
                                     try p.preferences.map { try ChatJSON.string($0) }, p.peerType?.rawValue, userId])
    }

    /// Marks the user's profile as changed for groups (chat version 7 sends it with the next message).
    func markUserMemberProfileUpdated(userId: Int64, at now: Double) throws {
        try cachedStatement(sql: "UPDATE users SET user_member_profile_updated_at = ? WHERE user_id = ?").execute(arguments: [now, userId])
    }

    /// Whether the group has not had the user's current profile yet: changed after it was last
    /// sent there, and our membership is not incognito (simplex-chat `shouldSendProfileUpdate`).
    func groupNeedsUserProfile(groupId: Int64) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: """
            SELECT u.user_member_profile_updated_at IS NOT NULL
              AND (g.user_member_profile_sent_at IS NULL OR g.user_member_profile_sent_at < u.user_member_profile_updated_at)
              AND NOT EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = g.group_id AND m.member_category = 'user'
                              AND m.member_profile_id IS NOT NULL)
            FROM groups g JOIN users u ON u.user_id = g.user_id WHERE g.group_id = ?
            """), arguments: [groupId]) == true
    }

    func markUserProfileSentToGroup(groupId: Int64, at now: Double) throws {
        try cachedStatement(sql: "UPDATE groups SET user_member_profile_sent_at = ? WHERE group_id = ?").execute(arguments: [now, groupId])
    }
}
