/// How simplex-chat combines preferences (Types/Preferences.hs `mergePreferences`,
/// `contactUserPreferences`, `prefEnabled`): what a contact's `mergedPreferences` says and what
/// the core enforces (reactions, voice, full deletion, timed messages).
extension Preferences {
    /// The feature's setting when this set has one.
    public func allow(_ f: ChatFeature) -> FeatureAllowed? {
        switch f {
        case .timedMessages: timedMessages?.allow
        case .fullDelete: fullDelete?.allow
        case .reactions: reactions?.allow
        case .voice: voice?.allow
        case .files: files?.allow
        case .calls: calls?.allow
        case .sessions: sessions?.allow
        }
    }
}

extension Preferences {
    /// Every feature set (what we send a contact: simplex-chat `toChatPrefs`).
    public init(_ full: FullPreferences) {
        self.init(timedMessages: full.timedMessages, fullDelete: full.fullDelete, reactions: full.reactions, voice: full.voice,
                  files: full.files, calls: full.calls, sessions: full.sessions, commands: full.commands.isEmpty ? nil : full.commands)
    }
}

extension FullPreferences {
    public func allow(_ f: ChatFeature) -> FeatureAllowed {
        switch f {
        case .timedMessages: timedMessages.allow
        case .fullDelete: fullDelete.allow
        case .reactions: reactions.allow
        case .voice: voice.allow
        case .files: files.allow
        case .calls: calls.allow
        case .sessions: sessions.allow
        }
    }

    /// Per feature: `first`'s setting, else `second`'s, else the default.
    public static func merged(_ first: Preferences?, _ second: Preferences?) -> FullPreferences {
        let d = defaults
        return FullPreferences(
            timedMessages: first?.timedMessages ?? second?.timedMessages ?? d.timedMessages,
            fullDelete: first?.fullDelete ?? second?.fullDelete ?? d.fullDelete,
            reactions: first?.reactions ?? second?.reactions ?? d.reactions,
            voice: first?.voice ?? second?.voice ?? d.voice,
            files: first?.files ?? second?.files ?? d.files,
            calls: first?.calls ?? second?.calls ?? d.calls,
            sessions: first?.sessions ?? second?.sessions ?? d.sessions,
            commands: first?.commands ?? second?.commands ?? d.commands)
    }
}

extension PrefEnabled {
    /// A feature is on for a side when neither side says no; "always" against "no" keeps it on
    /// for the "always" side's peer only in asymmetric features (all but timed messages).
    public static func of(asymmetric: Bool, user: FeatureAllowed, contact: FeatureAllowed) -> PrefEnabled {
        switch (user, contact) {
        case (.always, .no): PrefEnabled(forUser: false, forContact: asymmetric)
        case (.no, .always): PrefEnabled(forUser: asymmetric, forContact: false)
        case (_, .no), (.no, _): PrefEnabled(forUser: false, forContact: false)
        default: PrefEnabled(forUser: true, forContact: true)
        }
    }
}

extension ContactUserPreferences {
    /// The contact's merged preferences from the user's global preferences, the user's
    /// per-contact override and the contact's own (from its profile). An incognito connection
    /// never uses the user's global preferences.
    public static func merged(user: Preferences?, override: Preferences, contact: Preferences?, incognito: Bool) -> ContactUserPreferences {
        let ours = FullPreferences.merged(override, incognito ? nil : user)
        let theirs = FullPreferences.merged(contact, nil)
        let defaults = FullPreferences.defaults
        func pref(_ f: ChatFeature) -> ContactUserPreference {
            let userAllow = ours.allow(f), contactAllow = theirs.allow(f)
            let source: ContactUserPref
            if incognito {
                source = .contact(preference: SimplePreference(allow: override.allow(f) ?? defaults.allow(f)))
            } else if let o = override.allow(f) {
                source = .contact(preference: SimplePreference(allow: o))
            } else {
                source = .user(preference: SimplePreference(allow: userAllow))
            }
            return ContactUserPreference(enabled: .of(asymmetric: f != .timedMessages, user: userAllow, contact: contactAllow),
                                         userPreference: source, contactPreference: SimplePreference(allow: contactAllow))
        }
        return ContactUserPreferences(timedMessages: pref(.timedMessages), fullDelete: pref(.fullDelete), reactions: pref(.reactions),
                                      voice: pref(.voice), files: pref(.files), calls: pref(.calls), sessions: pref(.sessions),
                                      commands: contact?.commands)
    }

    public func enabled(_ f: ChatFeature) -> PrefEnabled {
        switch f {
        case .timedMessages: timedMessages.enabled
        case .fullDelete: fullDelete.enabled
        case .reactions: reactions.enabled
        case .voice: voice.enabled
        case .files: files.enabled
        case .calls: calls.enabled
        case .sessions: sessions.enabled
        }
    }
}

extension ChatFeature {
    /// simplex-chat `chatFeatureNameText`, used in "feature not allowed" errors.
    public var displayName: String {
        switch self {
        case .timedMessages: "Disappearing messages"
        case .fullDelete: "Full deletion"
        case .reactions: "Message reactions"
        case .voice: "Voice messages"
        case .files: "Files and media"
        case .calls: "Audio/video calls"
        case .sessions: "Sessions"
        }
    }
}
