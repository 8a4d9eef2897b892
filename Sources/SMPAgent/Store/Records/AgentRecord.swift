import GRDB

/// Every agent table maps its snake_case columns to camelCase properties the same way.
protocol AgentRecord: Codable, FetchableRecord, PersistableRecord, Sendable {}

extension AgentRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}
