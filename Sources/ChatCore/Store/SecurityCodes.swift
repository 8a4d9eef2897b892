import GRDB

/// Verified security codes of connections (simplex-chat Store/Direct.hs `setConnectionVerified`).
extension Database {
    /// Records `code` as verified now, or clears the verification (nil).
    func setConnectionVerified(connectionId: Int64, code: String?, at now: Double) throws {
        try cachedStatement(sql: """
            UPDATE connections SET security_code = ?, security_code_verified_at = ?, updated_at = ? WHERE connection_id = ?
            """).execute(arguments: [code, code == nil ? nil : now, now, connectionId])
    }
}
