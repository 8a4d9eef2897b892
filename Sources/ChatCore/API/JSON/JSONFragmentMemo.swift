import NIOConcurrencyHelpers

/// The encoded JSON of values that recur unchanged in event after event (the user, a contact's
/// profile, connection and merged preferences: about 60 % of a newChatItems event's bytes),
/// keyed by the value itself, so each is encoded once while it stays the same. A changed value
/// is a different key, so a fragment can never be stale. Owned by one controller; bounded.
public final class JSONFragmentMemo: Sendable {
    private struct Tables {
        var users: [User: [UInt8]] = [:]
        var profiles: [LocalProfile: [UInt8]] = [:]
        var connections: [Connection: [UInt8]] = [:]
        var preferences: [ContactUserPreferences: [UInt8]] = [:]
        var count = 0
    }

    /// Entries kept before the tables start over (a few per contact in use).
    static let capacity = 2_048

    private let tables = NIOLockedValueBox(Tables())

    public init() {}

    /// Whether values of `T` are kept here: a few metatype comparisons, cheap enough to ask for
    /// every member an encoder writes.
    @inline(__always)
    static func keeps<T>(_: T.Type) -> Bool {
        T.self == User.self || T.self == LocalProfile.self || T.self == Connection.self || T.self == ContactUserPreferences.self
    }

    /// The bytes `value` was encoded to, if it was encoded before.
    func fragment<T>(_ value: T) -> [UInt8]? {
        tables.withLockedValue { t in
            switch value {
            case let v as User: return t.users[v]
            case let v as LocalProfile: return t.profiles[v]
            case let v as Connection: return t.connections[v]
            case let v as ContactUserPreferences: return t.preferences[v]
            default: return nil
            }
        }
    }

    /// Fragments kept (for tests).
    var count: Int { tables.withLockedValue { $0.count } }

    func remember<T>(_ value: T, _ bytes: [UInt8]) {
        tables.withLockedValue { t in
            if t.count >= Self.capacity { t = Tables() }
            switch value {
            case let v as User: t.users[v] = bytes
            case let v as LocalProfile: t.profiles[v] = bytes
            case let v as Connection: t.connections[v] = bytes
            case let v as ContactUserPreferences: t.preferences[v] = bytes
            default: return
            }
            t.count += 1
        }
    }
}
