import Foundation
import GRDB
import Testing

@testable import ChatCore

/// Index upkeep of chat items (migrations m20261128_chat_item_index_upkeep and
/// m20261207_unread_item_indexes, issue 16): a contact's item is entered only in the indexes its
/// chat uses, the typed-status indexes hold unread items only (a sent item's status changes touch
/// no index), group, forwarding and unread lookups still use their (partial) indexes, and marking
/// a chat read changes exactly its unread items.
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

    func item(_ db: Database, contactId: Int64? = nil, groupId: Int64? = nil, status: CIStatus, sent: Bool = false) throws -> Int64 {
        let row = NewChatItem(userId: 1, contactId: contactId, groupId: groupId, sent: sent, itemTs: 0, text: "x",
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

    @Test func contactItemEntersFiveIndexesAndOnlyUnreadOnesAreInTheStatusIndexes() throws {
        let (q, path) = try database()
        defer { try? q.close(); try? FileManager.default.removeItem(atPath: path) }
        try q.write { db in
            let id = try item(db, contactId: 1, status: .rcvNew)
            let entered = try indexes(db, holding: id).filter(\.2)
            // Before m20261128: 12 (7 of them for groups, forwarding or the status text).
            #expect(entered.count == 5, "\(entered.map(\.0))")
            let unread = entered.filter { $0.0.hasSuffix("_unread") }
            #expect(unread.count == 2, "\(unread.map(\.0))")
            // Read, it leaves them.
            try db.execute(sql: "UPDATE chat_items SET item_status = ? WHERE chat_item_id = ?",
                           arguments: [try ChatController.jsonText(CIStatus.rcvRead), id])
            #expect(try indexes(db, holding: id).filter(\.2).count == 3)
            // A sent item is in none of them, whatever its status (before m20261207: two, each
            // status change moving both entries).
            let sent = try item(db, contactId: 1, status: .sndNew, sent: true)
            for status in [CIStatus.sndNew, .sndSent(sndProgress: .complete), .sndRcvd(msgRcptStatus: .ok, sndProgress: .complete)] {
                try db.execute(sql: "UPDATE chat_items SET item_status = ? WHERE chat_item_id = ?",
                               arguments: [try ChatController.jsonText(status), sent])
                let held = try indexes(db, holding: sent).filter(\.2).map(\.0)
                #expect(held.count == 3 && !held.contains { $0.contains("status") || $0.hasSuffix("_unread") }, "\(held)")
            }
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
                "SELECT count(*) FROM chat_items WHERE contact_id = ? AND item_status_type = 'rcvNew'",
                "SELECT count(*) FROM chat_items WHERE user_id = ? AND item_status_type = 'rcvNew'",
                "SELECT count(*) FROM chat_items WHERE group_id = ? AND group_scope_group_member_id IS NULL AND user_mention = 1 AND item_status_type = 'rcvNew'",
                "UPDATE chat_items SET item_status = ? WHERE contact_id = ? AND item_status_type = 'rcvNew'",
                "UPDATE chat_items SET item_status = ? WHERE group_id = ? AND group_scope_group_member_id = ? AND item_status_type = 'rcvNew'",
            ] {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(Array(repeating: 1, count: sql.filter { $0 == "?" }.count)))
                    .map { $0["detail"] as String }.joined(separator: "; ")
                #expect(plan.contains("USING") && !plan.contains("SCAN chat_items"), "\(sql): \(plan)")
            }
        }
    }

    @Test func readingAChatChangesItsUnreadItemsOnly() throws {
        let (q, path) = try database()
        defer { try? q.close(); try? FileManager.default.removeItem(atPath: path) }
        let read = try ChatController.jsonText(CIStatus.rcvRead)
        try q.write { db in
            let c1 = try item(db, contactId: 1, status: .rcvNew), c2 = try item(db, contactId: 1, status: .sndNew)
            let other = try item(db, contactId: 2, status: .rcvNew)
            let g1 = try item(db, groupId: 1, status: .rcvNew), g2 = try item(db, groupId: 1, status: .rcvRead)
            try db.markNewItems(contactId: 1, as: read)
            try db.markNewItems(groupId: 1, as: read)
            let types = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT chat_item_id, item_status_type FROM chat_items")
                .map { ($0[0] as Int64, $0[1] as String) })
            #expect(types == [c1: "rcvRead", c2: "sndNew", other: "rcvNew", g1: "rcvRead", g2: "rcvRead"])
        }
    }
}
