import Foundation
import GRDB
import Testing

@testable import ChatCore

/// Index upkeep of chat items (migration m20261128_chat_item_index_upkeep, issue 16): a contact's
/// item is entered only in the indexes its chat uses, a status change touches two of them, group
/// and forwarding lookups still use their (partial) indexes, and marking a chat read still changes
/// exactly the items in the old status.
@Suite struct ChatItemIndexTests {
    /// A migrated chat database, opened without foreign keys so items can be written alone.
    func database() throws -> (DatabaseQueue, String) {
        let path = NSTemporaryDirectory() + "chat-index-\(UInt32.random(in: 0...UInt32.max))_chat.db"
        guard case .success(let migrated) = ChatStore.open(path: path, key: "", confirm: .yesUp) else {
            throw ChatError.error(errorType: .internalError(message: "open failed"))
        }
        migrated.close()
        var plain = Configuration()
        plain.foreignKeysEnabled = false
        return (try DatabaseQueue(path: path, configuration: plain), path)
    }

    func item(_ db: Database, contactId: Int64? = nil, groupId: Int64? = nil, status: CIStatus) throws -> Int64 {
        let row = NewChatItem(userId: 1, contactId: contactId, groupId: groupId, sent: false, itemTs: 0, text: "x",
                              contentJSON: #"{"type":"rcvMsgContent","msgContent":{"type":"text","text":"x"}}"#,
                              statusJSON: try ChatController.jsonText(status), sharedMsgId: nil)
        return try db.insertChatItem(row, at: 0)
    }

    /// `(name, columns, entered)` of each chat_items index for one item: whether the item is in it
    /// (a partial index holds the rows its WHERE accepts).
    func indexes(_ db: Database, holding itemId: Int64) throws -> [(String, [String], Bool)] {
        try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'chat_items' AND sql IS NOT NULL")
            .map { r in
                let name: String = r["name"], sql: String = r["sql"]
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_xinfo(?) WHERE key = 1", arguments: [name])
                guard let w = sql.range(of: " WHERE ", options: .caseInsensitive) else { return (name, columns, true) }
                let entered = try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM chat_items WHERE chat_item_id = ? AND (\(sql[w.upperBound...]))",
                                                arguments: [itemId]) ?? false
                return (name, columns, entered)
            }
    }

    @Test func contactItemEntersFiveIndexesAndAStatusChangeTwo() throws {
        let (q, path) = try database()
        defer { try? q.close(); try? FileManager.default.removeItem(atPath: path) }
        try q.write { db in
            let id = try item(db, contactId: 1, status: .rcvNew)
            let entered = try indexes(db, holding: id).filter(\.2)
            // Before the migration: 12 (7 of them for groups, forwarding or the status text).
            #expect(entered.count == 5, "\(entered.map(\.0))")
            let statusIndexes = entered.filter { $0.1.contains("item_status") || $0.1.contains("item_status_type") }
            #expect(statusIndexes.count == 2, "\(statusIndexes.map(\.0))")
            // A group's item is still in every group index.
            let gid = try item(db, groupId: 1, status: .rcvNew)
            let group = try indexes(db, holding: gid).filter { $0.1.first == "group_id" }
            #expect(group.count == 4 && group.allSatisfy(\.2), "\(group.map(\.0))")
        }
    }

    @Test func groupAndForwardingLookupsUseTheirIndexes() throws {
        let (q, path) = try database()
        defer { try? q.close(); try? FileManager.default.removeItem(atPath: path) }
        try q.read { db in
            for sql in [
                "SELECT * FROM chat_items WHERE group_id = ? AND group_scope_group_member_id IS NULL ORDER BY chat_item_id DESC LIMIT 1",
                "SELECT 1 FROM chat_items WHERE group_id = ? AND group_member_id = ? AND shared_msg_id = ?",
                "SELECT count(*) FROM chat_items WHERE group_id = ? AND group_scope_group_member_id IS NULL AND item_status_type = 'rcvNew'",
                "SELECT chat_item_id FROM chat_items WHERE forwarded_by_group_member_id = ?",
            ] {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(Array(repeating: 1, count: sql.filter { $0 == "?" }.count)))
                    .map { $0["detail"] as String }.joined(separator: "; ")
                #expect(plan.contains("USING") && !plan.contains("SCAN chat_items"), "\(sql): \(plan)")
            }
        }
    }

    @Test func readingAChatChangesTheItemsInTheOldStatusOnly() throws {
        let (q, path) = try database()
        defer { try? q.close(); try? FileManager.default.removeItem(atPath: path) }
        let new = try ChatController.jsonText(CIStatus.rcvNew), read = try ChatController.jsonText(CIStatus.rcvRead)
        try q.write { db in
            let c1 = try item(db, contactId: 1, status: .rcvNew), c2 = try item(db, contactId: 1, status: .sndNew)
            let other = try item(db, contactId: 2, status: .rcvNew)
            let g1 = try item(db, groupId: 1, status: .rcvNew), g2 = try item(db, groupId: 1, status: .rcvRead)
            try db.setChatItemsStatus(contactId: 1, from: new, to: read)
            try db.setChatItemsStatus(groupId: 1, from: new, to: read)
            let types = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT chat_item_id, item_status_type FROM chat_items")
                .map { ($0[0] as Int64, $0[1] as String) })
            #expect(types == [c1: "rcvRead", c2: "sndNew", other: "rcvNew", g1: "rcvRead", g2: "rcvRead"])
        }
    }
}
