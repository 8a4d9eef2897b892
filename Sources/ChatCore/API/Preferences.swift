/// Chat feature preferences (TYPES.md Preferences, FullPreferences and their parts): what a user
/// allows in direct chats, and how the user's and the contact's choices combine.

/// Whether a feature is allowed (TYPES.md FeatureAllowed).
public enum FeatureAllowed: String, Codable, Sendable, Hashable {
    case always, yes, no
}

/// TYPES.md SimplePreference.
public struct SimplePreference: Codable, Sendable, Hashable {
    public var allow: FeatureAllowed
    public init(allow: FeatureAllowed) { self.allow = allow }
}

/// TYPES.md TimedMessagesPreference: disappearing messages, with their time to live in seconds.
public struct TimedMessagesPreference: Codable, Sendable, Hashable {
    public var allow: FeatureAllowed
    public var ttl: Int?
    public init(allow: FeatureAllowed, ttl: Int? = nil) {
        self.allow = allow
        self.ttl = ttl
    }
}

/// A bot command or menu shown to the user (TYPES.md ChatBotCommand).
public indirect enum ChatBotCommand: Sendable, Hashable, Codable {
    case command(keyword: String, label: String, params: String?)
    case menu(label: String, commands: [ChatBotCommand])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "command": self = try .command(keyword: c.v("keyword"), label: c.v("label"), params: c.opt("params"))
        case "menu": self = try .menu(label: c.v("label"), commands: c.v("commands"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown ChatBotCommand \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .command(let keyword, let label, let params):
            try c.tag("command")
            try c.put(keyword, "keyword")
            try c.put(label, "label")
            try c.put(params, "params")
        case .menu(let label, let commands):
            try c.tag("menu")
            try c.put(label, "label")
            try c.put(commands, "commands")
        }
    }
}

/// A user's (or a per-contact override of) chat preferences; every member optional, and members
/// this version does not know are ignored (TYPES.md Preferences).
public struct Preferences: Codable, Sendable, Hashable {
    public var timedMessages: TimedMessagesPreference?
    public var fullDelete: SimplePreference?
    public var reactions: SimplePreference?
    public var voice: SimplePreference?
    public var files: SimplePreference?
    public var calls: SimplePreference?
    public var sessions: SimplePreference?
    public var commands: [ChatBotCommand]?

    public init(
        timedMessages: TimedMessagesPreference? = nil, fullDelete: SimplePreference? = nil,
        reactions: SimplePreference? = nil, voice: SimplePreference? = nil, files: SimplePreference? = nil,
        calls: SimplePreference? = nil, sessions: SimplePreference? = nil, commands: [ChatBotCommand]? = nil
    ) {
        self.timedMessages = timedMessages
        self.fullDelete = fullDelete
        self.reactions = reactions
        self.voice = voice
        self.files = files
        self.calls = calls
        self.sessions = sessions
        self.commands = commands
    }
}

/// The user's preferences with defaults filled in (TYPES.md FullPreferences).
public struct FullPreferences: Codable, Sendable, Hashable {
    public var timedMessages: TimedMessagesPreference
    public var fullDelete: SimplePreference
    public var reactions: SimplePreference
    public var voice: SimplePreference
    public var files: SimplePreference
    public var calls: SimplePreference
    public var sessions: SimplePreference
    public var commands: [ChatBotCommand]

    /// Our defaults (as simplex-chat's): full delete and sessions off, files always, the rest allowed.
    public static let defaults = FullPreferences(
        timedMessages: TimedMessagesPreference(allow: .yes, ttl: nil), fullDelete: SimplePreference(allow: .no),
        reactions: SimplePreference(allow: .yes), voice: SimplePreference(allow: .yes),
        files: SimplePreference(allow: .always), calls: SimplePreference(allow: .yes),
        sessions: SimplePreference(allow: .no), commands: [])

    public init(
        timedMessages: TimedMessagesPreference, fullDelete: SimplePreference, reactions: SimplePreference,
        voice: SimplePreference, files: SimplePreference, calls: SimplePreference, sessions: SimplePreference,
        commands: [ChatBotCommand] = []
    ) {
        self.timedMessages = timedMessages
        self.fullDelete = fullDelete
        self.reactions = reactions
        self.voice = voice
        self.files = files
        self.calls = calls
        self.sessions = sessions
        self.commands = commands
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        let d = FullPreferences.defaults
        timedMessages = try c.v("timedMessages", default: d.timedMessages)
        fullDelete = try c.v("fullDelete", default: d.fullDelete)
        reactions = try c.v("reactions", default: d.reactions)
        voice = try c.v("voice", default: d.voice)
        files = try c.v("files", default: d.files)
        calls = try c.v("calls", default: d.calls)
        sessions = try c.v("sessions", default: d.sessions)
        commands = try c.v("commands", default: [])
    }
}

/// Whether a feature is on for each side (TYPES.md PrefEnabled).
public struct PrefEnabled: Codable, Sendable, Hashable {
    public var forUser: Bool
    public var forContact: Bool
    public init(forUser: Bool, forContact: Bool) {
        self.forUser = forUser
        self.forContact = forContact
    }
}

/// Where the user's effective preference comes from (TYPES.md ContactUserPref).
public enum ContactUserPref: Sendable, Hashable, Codable {
    /// The per-contact override.
    case contact(preference: SimplePreference)
    /// The user's global preference.
    case user(preference: SimplePreference)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "contact": self = try .contact(preference: c.v("preference"))
        case "user": self = try .user(preference: c.v("preference"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown ContactUserPref \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .contact(let p):
            try c.tag("contact")
            try c.put(p, "preference")
        case .user(let p):
            try c.tag("user")
            try c.put(p, "preference")
        }
    }
}

/// One feature's combined state in a direct chat (TYPES.md ContactUserPreference).
public struct ContactUserPreference: Codable, Sendable, Hashable {
    public var enabled: PrefEnabled
    public var userPreference: ContactUserPref
    public var contactPreference: SimplePreference
    public init(enabled: PrefEnabled, userPreference: ContactUserPref, contactPreference: SimplePreference) {
        self.enabled = enabled
        self.userPreference = userPreference
        self.contactPreference = contactPreference
    }
}

/// All features' combined state with one contact (TYPES.md ContactUserPreferences).
public struct ContactUserPreferences: Codable, Sendable, Hashable {
    public var timedMessages: ContactUserPreference
    public var fullDelete: ContactUserPreference
    public var reactions: ContactUserPreference
    public var voice: ContactUserPreference
    public var files: ContactUserPreference
    public var calls: ContactUserPreference
    public var sessions: ContactUserPreference
    public var commands: [ChatBotCommand]?

    public init(
        timedMessages: ContactUserPreference, fullDelete: ContactUserPreference, reactions: ContactUserPreference,
        voice: ContactUserPreference, files: ContactUserPreference, calls: ContactUserPreference,
        sessions: ContactUserPreference, commands: [ChatBotCommand]? = nil
    ) {
        self.timedMessages = timedMessages
        self.fullDelete = fullDelete
        self.reactions = reactions
        self.voice = voice
        self.files = files
        self.calls = calls
        self.sessions = sessions
        self.commands = commands
    }
}

/// Chat features that can be configured per direct chat (TYPES.md ChatFeature).
public enum ChatFeature: String, Codable, Sendable, Hashable {
    case timedMessages, fullDelete, reactions, voice, files, calls, sessions
}
