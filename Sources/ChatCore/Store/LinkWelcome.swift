import GRDB

/// The welcome message of an address shown from its short link data (chat version 16).
extension Database {
    func setContactWelcomeId(_ contactId: Int64, _ sharedMsgId: String) throws {
        try cachedStatement(sql: "UPDATE contacts SET welcome_shared_msg_id = ? WHERE contact_id = ?").execute(arguments: [sharedMsgId, contactId])
    }

    func contactWelcomeId(_ contactId: Int64) throws -> String? {
        try String.fetchOne(cachedStatement(sql: "SELECT welcome_shared_msg_id FROM contacts WHERE contact_id = ?"), arguments: [contactId])
    }

    func setRequestWelcomeId(_ requestId: Int64, _ sharedMsgId: String) throws {
        try cachedStatement(sql: "UPDATE contact_requests SET welcome_shared_msg_id = ? WHERE contact_request_id = ?")
            .execute(arguments: [sharedMsgId, requestId])
    }

    /// The accepted contact keeps the joiner's welcome ID (the request row is deleted).
    func moveRequestWelcomeId(_ requestId: Int64, toContact contactId: Int64) throws {
        try cachedStatement(sql: """
            UPDATE contacts SET welcome_shared_msg_id = (SELECT welcome_shared_msg_id FROM contact_requests WHERE contact_request_id = ?)
            WHERE contact_id = ?
            """).execute(arguments: [requestId, contactId])
    }

    /// The shared ID of a prepared group's welcome item: the group description from a group link's
    /// data, or a business address's welcome in the customer's business chat.
    func setGroupWelcomeId(_ groupId: Int64, _ sharedMsgId: String) throws {
        try cachedStatement(sql: "UPDATE groups SET welcome_shared_msg_id = ? WHERE group_id = ?").execute(arguments: [sharedMsgId, groupId])
    }

    func groupWelcomeId(_ groupId: Int64) throws -> String? {
        try String.fetchOne(cachedStatement(sql: "SELECT welcome_shared_msg_id FROM groups WHERE group_id = ?"), arguments: [groupId])
    }

    /// The welcome ID a joiner named in its request to our group link (it shows the welcome already).
    func setMemberWelcomeId(_ groupMemberId: Int64, _ sharedMsgId: String) throws {
        try cachedStatement(sql: "UPDATE group_members SET member_welcome_shared_msg_id = ? WHERE group_member_id = ?")
            .execute(arguments: [sharedMsgId, groupMemberId])
    }

    func memberWelcomeId(_ groupMemberId: Int64) throws -> String? {
        try String.fetchOne(cachedStatement(sql: "SELECT member_welcome_shared_msg_id FROM group_members WHERE group_member_id = ?"),
                            arguments: [groupMemberId])
    }
}
