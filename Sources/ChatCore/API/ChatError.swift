import Foundation

/// Every error the chat API reports (TYPES.md ChatError): a chat-level error, an agent error
/// with the connection it happened on, a store error, or a database error.
public enum ChatError: Error, Sendable, Hashable, Codable {
    case error(errorType: ChatErrorType)
    case errorAgent(agentError: AgentErrorType, agentConnId: String, connectionEntity_: ConnectionEntity?)
    case errorStore(storeError: StoreError)
    case errorDatabase(databaseError: DatabaseError)
    /// `errorRemoteCtrl`, `errorRemoteHost` and members of newer versions, kept raw.
    case unknown(JSONValue)

    /// The error simplex-chat returns for a command it cannot parse.
    public static func commandError(_ message: String) -> ChatError {
        .error(errorType: .commandError(message: message))
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "error": self = try .error(errorType: c.v("errorType"))
        case "errorAgent":
            self = try .errorAgent(
                agentError: c.v("agentError"), agentConnId: c.v("agentConnId", default: ""),
                connectionEntity_: c.opt("connectionEntity_"))
        case "errorStore": self = try .errorStore(storeError: c.v("storeError"))
        case "errorDatabase": self = try .errorDatabase(databaseError: c.v("databaseError"))
        default: self = try .unknown(rawJSON(decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let json) = self {
            try json.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .error(let t):
            try c.tag("error")
            try c.put(t, "errorType")
        case .errorAgent(let e, let connId, let entity):
            try c.tag("errorAgent")
            try c.put(e, "agentError")
            try c.put(connId, "agentConnId")
            try c.put(entity, "connectionEntity_")
        case .errorStore(let e):
            try c.tag("errorStore")
            try c.put(e, "storeError")
        case .errorDatabase(let e):
            try c.tag("errorDatabase")
            try c.put(e, "databaseError")
        case .unknown: break
        }
    }

    /// Compact JSON of the error alone.
    public func jsonString() -> String {
        (try? ChatJSON.string(self)) ?? #"{"type":"error","errorType":{"type":"internalError","message":"encoding"}}"#
    }
}

/// The database cannot be opened or exported (simplex-chat `DatabaseError`).
public enum DatabaseError: Sendable, Hashable, Codable {
    case errorEncrypted
    case errorPlaintext
    case errorNoFile(dbFile: String)
    case errorExport(sqliteError: SQLiteError)
    case errorOpen(sqliteError: SQLiteError)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "errorEncrypted": self = .errorEncrypted
        case "errorPlaintext": self = .errorPlaintext
        case "errorNoFile": self = try .errorNoFile(dbFile: c.v("dbFile"))
        case "errorExport": self = try .errorExport(sqliteError: c.v("sqliteError"))
        case "errorOpen": self = try .errorOpen(sqliteError: c.v("sqliteError"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown DatabaseError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .errorEncrypted: try c.tag("errorEncrypted")
        case .errorPlaintext: try c.tag("errorPlaintext")
        case .errorNoFile(let f):
            try c.tag("errorNoFile")
            try c.put(f, "dbFile")
        case .errorExport(let e):
            try c.tag("errorExport")
            try c.put(e, "sqliteError")
        case .errorOpen(let e):
            try c.tag("errorOpen")
            try c.put(e, "sqliteError")
        }
    }
}

/// simplex-chat `SQLiteError`.
public enum SQLiteError: Sendable, Hashable, Codable {
    case errorNotADatabase
    case error(dbError: String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "errorNotADatabase": self = .errorNotADatabase
        case "error": self = try .error(dbError: c.v("dbError"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown SQLiteError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .errorNotADatabase: try c.tag("errorNotADatabase")
        case .error(let e):
            try c.tag("error")
            try c.put(e, "dbError")
        }
    }
}

/// The entity an agent connection belongs to, reported with agent errors (TYPES.md ConnectionEntity).
public enum ConnectionEntity: Sendable, Hashable, Codable {
    case rcvDirectMsgConnection(entityConnection: Connection, contact: Contact?)
    case rcvGroupMsgConnection(entityConnection: Connection, groupInfo: GroupInfo, groupMember: GroupMember)
    case userContactConnection(entityConnection: Connection, userContact: UserContact)
    /// File connections and members of newer versions, kept raw.
    case unknown(JSONValue)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "rcvDirectMsgConnection": self = try .rcvDirectMsgConnection(entityConnection: c.v("entityConnection"), contact: c.opt("contact"))
        case "rcvGroupMsgConnection":
            self = try .rcvGroupMsgConnection(entityConnection: c.v("entityConnection"), groupInfo: c.v("groupInfo"), groupMember: c.v("groupMember"))
        case "userContactConnection": self = try .userContactConnection(entityConnection: c.v("entityConnection"), userContact: c.v("userContact"))
        default: self = try .unknown(rawJSON(decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let json) = self {
            try json.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .rcvDirectMsgConnection(let conn, let contact):
            try c.tag("rcvDirectMsgConnection")
            try c.put(conn, "entityConnection")
            try c.put(contact, "contact")
        case .rcvGroupMsgConnection(let conn, let g, let m):
            try c.tag("rcvGroupMsgConnection")
            try c.put(conn, "entityConnection")
            try c.put(g, "groupInfo")
            try c.put(m, "groupMember")
        case .userContactConnection(let conn, let uc):
            try c.tag("userContactConnection")
            try c.put(conn, "entityConnection")
            try c.put(uc, "userContact")
        case .unknown: break
        }
    }
}

/// The outcome of opening and migrating the chat database (simplex-chat `DBMigrationResult`,
/// returned by `chat_migrate_init`).
public enum DBMigrationResult: Sendable, Hashable, Codable {
    case ok
    case invalidConfirmation
    case errorNotADatabase(dbFile: String)
    case errorMigration(dbFile: String, migrationError: MigrationError)
    case errorSQL(dbFile: String, migrationSQLError: String)
    case unknown(JSONValue)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "ok": self = .ok
        case "invalidConfirmation": self = .invalidConfirmation
        case "errorNotADatabase": self = try .errorNotADatabase(dbFile: c.v("dbFile"))
        case "errorMigration": self = try .errorMigration(dbFile: c.v("dbFile"), migrationError: c.v("migrationError"))
        case "errorSQL": self = try .errorSQL(dbFile: c.v("dbFile"), migrationSQLError: c.v("migrationSQLError"))
        default: self = try .unknown(rawJSON(decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let json) = self {
            try json.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .ok: try c.tag("ok")
        case .invalidConfirmation: try c.tag("invalidConfirmation")
        case .errorNotADatabase(let f):
            try c.tag("errorNotADatabase")
            try c.put(f, "dbFile")
        case .errorMigration(let f, let e):
            try c.tag("errorMigration")
            try c.put(f, "dbFile")
            try c.put(e, "migrationError")
        case .errorSQL(let f, let e):
            try c.tag("errorSQL")
            try c.put(f, "dbFile")
            try c.put(e, "migrationSQLError")
        case .unknown: break
        }
    }

    public func jsonString() -> String {
        (try? ChatJSON.string(self)) ?? #"{"type":"ok"}"#
    }
}

/// Why migrations need confirmation or failed (simplexmq `MigrationError`).
public enum MigrationError: Sendable, Hashable, Codable {
    /// Upgrades to run, each with whether it can be undone.
    case upgrade(upMigrations: [UpMigration])
    case downgrade(downMigrations: [String])
    case migrationError(mtrError: MTRError)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "upgrade": self = try .upgrade(upMigrations: c.v("upMigrations"))
        case "downgrade": self = try .downgrade(downMigrations: c.v("downMigrations"))
        case "migrationError": self = try .migrationError(mtrError: c.v("mtrError"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown MigrationError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .upgrade(let ms):
            try c.tag("upgrade")
            try c.put(ms, "upMigrations")
        case .downgrade(let ms):
            try c.tag("downgrade")
            try c.put(ms, "downMigrations")
        case .migrationError(let e):
            try c.tag("migrationError")
            try c.put(e, "mtrError")
        }
    }
}

/// simplexmq `UpMigration`.
public struct UpMigration: Codable, Sendable, Hashable {
    public var upName: String
    public var withDown: Bool
    public init(upName: String, withDown: Bool) {
        self.upName = upName
        self.withDown = withDown
    }
}

/// The app and database disagree on migrations (simplexmq `MTRError`).
public enum MTRError: Sendable, Hashable, Codable {
    case noDown(dbMigrations: [String])
    case different(appMigration: String, dbMigration: String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "noDown": self = try .noDown(dbMigrations: c.v("dbMigrations"))
        case "different": self = try .different(appMigration: c.v("appMigration"), dbMigration: c.v("dbMigration"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown MTRError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .noDown(let ms):
            try c.tag("noDown")
            try c.put(ms, "dbMigrations")
        case .different(let a, let d):
            try c.tag("different")
            try c.put(a, "appMigration")
            try c.put(d, "dbMigration")
        }
    }
}
