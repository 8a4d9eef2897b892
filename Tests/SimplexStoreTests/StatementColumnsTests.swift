import Foundation
import GRDB
import SimplexStore
import Testing

/// `StatementColumns` (a statement's current row read without a GRDB `Row`) reads what a `Row`
/// reads, by name and by index, optionals and NULLs included, and leaves the statement reusable.
@Suite struct StatementColumnsTests {
    /// One decoder, run on both kinds of row.
    struct Decoded: Equatable {
        var id: Int64, name: String, flag: Bool, score: Double, blob: Data, missing: String?, nothing: Int64?
        var byIndex: String, idByIndex: Int, absentColumn: String?

        init(_ r: some ColumnReading) {
            id = r["id"]
            name = r["NAME"]
            flag = r["flag"]
            score = r["score"]
            blob = r["blob"]
            missing = r["missing"]
            nothing = r["extra"]
            byIndex = r[1]
            idByIndex = r[0]
            absentColumn = r["no_such_column"]
        }
    }

    func database() throws -> DatabaseQueue {
        let q = try DatabaseQueue()
        try q.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, flag INTEGER, score REAL, blob BLOB, missing TEXT, extra INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (1, 'one', 1, 1.5, x'0102', NULL, NULL), (2, 'two', 0, -2.25, x'', 'here', 7)")
        }
        return q
    }

    @Test func readsWhatARowReads() throws {
        let q = try database()
        try q.read { db in
            let sql = "SELECT * FROM t WHERE id = ?"
            for id in [1, 2] {
                let row = try #require(try Row.fetchOne(db, sql: sql, arguments: [id]))
                let viaColumns = try db.firstRow(sql, [id]) { Decoded($0) }
                #expect(viaColumns == Decoded(row))
            }
            #expect(try db.firstRow(sql, [3]) { Decoded($0) } == nil)
        }
    }

    @Test func everyRowAndTheStatementAgain() throws {
        let q = try database()
        try q.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM t ORDER BY id")
            let rows = try Row.fetchAll(statement).map(Decoded.init)
            // Twice: the cursor resets the cached statement when it is done with it.
            #expect(try db.allRows(statement, []) { Decoded($0) } == rows)
            #expect(try db.allRows(statement, []) { Decoded($0) } == rows)
            #expect(try db.firstRow(statement, []) { Decoded($0) } == rows.first)
            #expect(try db.firstRow(statement, []) { Decoded($0) } == rows.first)
        }
    }

    /// A copied row keeps every column by name after the statement moved on.
    @Test func copiedRowOutlivesTheStep() throws {
        let q = try database()
        try q.read { db in
            let copies = try db.allRows(db.cachedStatement(sql: "SELECT * FROM t ORDER BY id"), []) { $0.copiedRow() }
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY id")
            #expect(copies.count == 2)
            for (copy, row) in zip(copies, rows) {
                for name in row.columnNames { #expect(copy[name] as DatabaseValue == row[name] as DatabaseValue) }
            }
        }
    }
}
