import Foundation
import GRDB

/// A contact or a group member, as the contact-merging probes name either (simplex-chat
/// `ContactOrMember`; here only their ids).
enum ProbeParty: Hashable, Sendable {
    case contact(Int64)
    case member(Int64)

    var contactId: Int64? { if case .contact(let id) = self { id } else { nil } }
    var groupMemberId: Int64? { if case .member(let id) = self { id } else { nil } }

    /// From a probe table row's `contact_id` / `group_member_id` (a contact first, as simplex-chat
    /// `getContactOrMember_`).
    init?(contactId: Int64?, groupMemberId: Int64?) {
        if let contactId {
            self = .contact(contactId)
        } else if let groupMemberId {
            self = .member(groupMemberId)
        } else {
            return nil
        }
    }
}

/// The probe tables (simplex-chat Store/Groups.hs `createSentProbe`, `createSentProbeHash`,
/// `matchReceivedProbe`, `matchReceivedProbeHash`, `matchSentProbe`) and the profile matches that
/// decide whom to probe (`getMatchingMembers`, `getMatchingMemberContacts`).
extension Database {
    /// A probe we send to `to`; returns its row id.
    func insertSentProbe(userId: Int64, to: ProbeParty, _ probe: Probe, at now: Double) throws -> Int64 {
        try run("""
            INSERT INTO sent_probes (user_id, contact_id, group_member_id, probe, created_at) VALUES (?, ?, ?, ?, ?)
            """, [userId, to.contactId, to.groupMemberId, Data(probe.bytes), now])
        return lastInsertedRowID
    }

    /// That the hash of probe `sentProbeId` went to `to`.
    func insertSentProbeHash(userId: Int64, sentProbeId: Int64, to: ProbeParty, at now: Double) throws {
        try run("""
            INSERT INTO sent_probe_hashes (sent_probe_id, user_id, contact_id, group_member_id, created_at) VALUES (?, ?, ?, ?, ?)
            """, [sentProbeId, userId, to.contactId, to.groupMemberId, now])
    }

    /// x.info.probe from `from`: the parties whose hash of this probe arrived earlier (at most one
    /// contact, the first, and every member), then the probe is recorded.
    func matchReceivedProbe(userId: Int64, from: ProbeParty, _ probe: Probe, at now: Double) throws -> [ProbeParty] {
        let hash = Data(probe.hash.bytes)
        let rows = try Row.fetchAll(self, sql: """
            SELECT r.contact_id, r.group_member_id FROM received_probes r
            LEFT JOIN contacts c ON c.contact_id = r.contact_id
            LEFT JOIN group_members m ON m.group_member_id = r.group_member_id
            WHERE r.user_id = ? AND r.probe_hash = ? AND r.probe IS NULL
              AND (c.contact_id IS NOT NULL OR m.group_member_id IS NOT NULL)
            ORDER BY r.received_probe_id
            """, arguments: [userId, hash])
        try run("""
            INSERT INTO received_probes (user_id, contact_id, group_member_id, probe, probe_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)
            """, [userId, from.contactId, from.groupMemberId, Data(probe.bytes), hash, now])
        let parties = rows.compactMap { r in ProbeParty(contactId: r["contact_id"], groupMemberId: r["group_member_id"]) }
        let firstContact = parties.first { $0.contactId != nil }
        return (firstContact.map { [$0] } ?? []) + parties.filter { $0.groupMemberId != nil }
    }

    /// x.info.probe.check from `from`: the party whose probe with this hash arrived earlier, with
    /// that probe; then the hash is recorded.
    func matchReceivedProbeHash(userId: Int64, from: ProbeParty, _ hash: ProbeHash, at now: Double) throws -> (ProbeParty, Probe)? {
        let h = Data(hash.bytes)
        let row = try Row.fetchOne(self, sql: """
            SELECT r.probe, r.contact_id, r.group_member_id FROM received_probes r
            LEFT JOIN contacts c ON c.contact_id = r.contact_id
            LEFT JOIN group_members m ON m.group_member_id = r.group_member_id
            WHERE r.user_id = ? AND r.probe_hash = ? AND r.probe IS NOT NULL
              AND (c.contact_id IS NOT NULL OR m.group_member_id IS NOT NULL)
            ORDER BY r.received_probe_id LIMIT 1
            """, arguments: [userId, h])
        try run("""
            INSERT INTO received_probes (user_id, contact_id, group_member_id, probe_hash, created_at) VALUES (?, ?, ?, ?, ?)
            """, [userId, from.contactId, from.groupMemberId, h, now])
        guard let row, let probeData = row["probe"] as Data?,
              let party = ProbeParty(contactId: row["contact_id"], groupMemberId: row["group_member_id"])
        else { return nil }
        return (party, Probe(bytes: Array(probeData)))
    }

    /// x.info.probe.ok from `from`: whom we sent this probe to, if its hash went to `from`.
    func matchSentProbe(userId: Int64, from: ProbeParty, _ probe: Probe) throws -> ProbeParty? {
        let row = try Row.fetchOne(self, sql: """
            SELECT s.contact_id, s.group_member_id FROM sent_probes s
            JOIN sent_probe_hashes h ON h.sent_probe_id = s.sent_probe_id
            WHERE s.user_id = ? AND s.probe = ? AND (h.contact_id = ? OR h.group_member_id = ?)
            LIMIT 1
            """, arguments: [userId, Data(probe.bytes), from.contactId, from.groupMemberId])
        return row.flatMap { r in ProbeParty(contactId: r["contact_id"], groupMemberId: r["group_member_id"]) }
    }

    /// Members (of any group, not ours) without a contact whose profile has this name, full name
    /// and image (simplex-chat `getMatchingMembers`; the caller keeps the current ones).
    func membersMatchingProfile(userId: Int64, _ p: Profile) throws -> [Int64] {
        try Int64.fetchAll(self, sql: """
            SELECT m.group_member_id FROM group_members m
            JOIN contact_profiles p ON p.profile_id = m.member_profile_id
            WHERE m.user_id = ? AND m.contact_id IS NULL AND m.member_category != 'user'
              AND p.display_name = ? AND p.full_name = ? AND p.image IS ?
            """, arguments: [userId, p.displayName, p.fullName, p.image])
    }

    /// Active contacts whose profile has this name, full name and image (simplex-chat
    /// `getMatchingMemberContacts`).
    func contactsMatchingProfile(userId: Int64, _ p: Profile) throws -> [Int64] {
        try Int64.fetchAll(self, sql: """
            SELECT ct.contact_id FROM contacts ct
            JOIN contact_profiles p ON p.profile_id = ct.profile_id
            WHERE ct.user_id = ? AND ct.contact_status = 'active'
              AND p.display_name = ? AND p.full_name = ? AND p.image IS ?
            """, arguments: [userId, p.displayName, p.fullName, p.image])
    }

    /// Probing on a contact's first CON is done once (simplex-chat `resetContactConnInitiated`).
    func resetConnectionInitiated(agentConnId: String, at now: Double) throws {
        try run("UPDATE connections SET initiated = 0, updated_at = ? WHERE agent_conn_id = ?", [now, agentConnId])
    }

    /// The member becomes the contact's: it takes the contact's name and profile (simplex-chat
    /// `associateMemberWithContactRecord`); its own profile row goes when nothing else uses it.
    func associateMemberWithContact(groupMemberId: Int64, contactId: Int64, at now: Double) throws {
        guard let ct = try Row.fetchOne(self, sql: "SELECT local_display_name, profile_id FROM contacts WHERE contact_id = ?", arguments: [contactId]),
              let oldProfileId = try Int64.fetchOne(self, sql: "SELECT member_profile_id FROM group_members WHERE group_member_id = ?",
                                                    arguments: [groupMemberId])
        else { return }
        let profileId: Int64 = ct["profile_id"]
        try run("""
            UPDATE group_members SET contact_id = ?, local_display_name = ?, member_profile_id = ?, updated_at = ? WHERE group_member_id = ?
            """, [contactId, ct["local_display_name"] as String, profileId, now, groupMemberId])
        if oldProfileId != profileId { try deleteProfileIfUnused(oldProfileId) }
    }

    /// The contact becomes the member's: it takes the member's name and profile (simplex-chat
    /// `associateContactWithMemberRecord`).
    func associateContactWithMember(contactId: Int64, groupMemberId: Int64, at now: Double) throws {
        guard let m = try Row.fetchOne(self, sql: "SELECT local_display_name, member_profile_id FROM group_members WHERE group_member_id = ?",
                                       arguments: [groupMemberId]),
              let memberProfileId = m["member_profile_id"] as Int64?,
              let oldProfileId = try Int64.fetchOne(self, sql: "SELECT profile_id FROM contacts WHERE contact_id = ?", arguments: [contactId])
        else { return }
        try run("UPDATE group_members SET contact_id = ?, updated_at = ? WHERE group_member_id = ?", [contactId, now, groupMemberId])
        try run("UPDATE contacts SET local_display_name = ?, profile_id = ?, updated_at = ? WHERE contact_id = ?",
                [m["local_display_name"] as String, memberProfileId, now, contactId])
        if oldProfileId != memberProfileId { try deleteProfileIfUnused(oldProfileId) }
    }

    /// A contact profile row that no contact, member, request or connection refers to any more.
    func deleteProfileIfUnused(_ profileId: Int64) throws {
        try run("""
            DELETE FROM contact_profiles WHERE profile_id = ?
              AND NOT EXISTS (SELECT 1 FROM contacts WHERE profile_id = ?)
              AND NOT EXISTS (SELECT 1 FROM group_members WHERE member_profile_id = ?)
              AND NOT EXISTS (SELECT 1 FROM contact_requests WHERE profile_id = ?)
              AND NOT EXISTS (SELECT 1 FROM connections WHERE custom_user_profile_id = ?)
              AND NOT EXISTS (SELECT 1 FROM users WHERE profile_id = ?)
            """, [profileId, profileId, profileId, profileId, profileId, profileId])
    }

    /// Whether another contact of the user has this local name.
    func contactNameUsed(userId: Int64, _ name: String, except contactId: Int64) throws -> Bool {
        try Bool.fetchOne(self, sql: "SELECT EXISTS (SELECT 1 FROM contacts WHERE user_id = ? AND local_display_name = ? AND contact_id != ?)",
                          arguments: [userId, name, contactId]) ?? false
    }
}
