import GRDB

extension Database {
    /// simplex-chat `checkContactHasItems`.
    func contactHasItems(_ contactId: Int64) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM chat_items WHERE contact_id = ? LIMIT 1"), arguments: [contactId]) == true
    }
}
