import GRDB

extension Database {
    /// simplex-chat `checkContactHasItems`.
    func contactHasItems(_ contactId: Int64) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM chat_items WHERE contact_id = ? LIMIT 1"), arguments: [contactId]) == true
    }

    /// Whether the contact's chat shows an e2e notice already, and with what post-quantum state
    /// (`.some(nil)`: one that says nothing, as a prepared address's); nil: none yet.
    func contactE2EInfo(_ contactId: Int64) throws -> Bool?? {
        guard let row = try Row.fetchOne(cachedStatement(sql: """
            SELECT json_extract(item_content, '$.e2eeInfo.pqEnabled') AS pq FROM chat_items
            WHERE contact_id = ? AND json_extract(item_content, '$.type') = 'rcvDirectE2EEInfo' ORDER BY chat_item_id DESC LIMIT 1
            """), arguments: [contactId]) else { return nil }
        let pq: Int64? = row["pq"]
        return .some(pq.map { $0 != 0 })
    }
}
