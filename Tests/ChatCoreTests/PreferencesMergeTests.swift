import Testing

@testable import ChatCore

/// simplex-chat's preference merging (Types/Preferences.hs), case by case.
@Suite struct PreferencesMergeTests {
    @Test func prefEnabledTable() {
        let cases: [(FeatureAllowed, FeatureAllowed, Bool, PrefEnabled)] = [
            (.yes, .yes, true, PrefEnabled(forUser: true, forContact: true)),
            (.always, .yes, true, PrefEnabled(forUser: true, forContact: true)),
            (.always, .no, true, PrefEnabled(forUser: false, forContact: true)),
            (.no, .always, true, PrefEnabled(forUser: true, forContact: false)),
            (.always, .no, false, PrefEnabled(forUser: false, forContact: false)),
            (.yes, .no, true, PrefEnabled(forUser: false, forContact: false)),
            (.no, .yes, true, PrefEnabled(forUser: false, forContact: false)),
        ]
        for (user, contact, asym, expected) in cases {
            #expect(PrefEnabled.of(asymmetric: asym, user: user, contact: contact) == expected, "\(user) \(contact) \(asym)")
        }
    }

    @Test func mergedPreferencesSources() {
        let user = Preferences(reactions: SimplePreference(allow: .no), voice: SimplePreference(allow: .always))
        let override = Preferences(voice: SimplePreference(allow: .no))
        let contact = Preferences(reactions: SimplePreference(allow: .yes), voice: SimplePreference(allow: .always))
        let m = ContactUserPreferences.merged(user: user, override: override, contact: contact, incognito: false)
        // reactions: the user's global "no" against the contact's "yes".
        #expect(m.reactions.userPreference == .user(preference: SimplePreference(allow: .no)))
        #expect(m.reactions.enabled == PrefEnabled(forUser: false, forContact: false))
        // voice: the per-contact override "no" against the contact's "always".
        #expect(m.voice.userPreference == .contact(preference: SimplePreference(allow: .no)))
        #expect(m.voice.enabled == PrefEnabled(forUser: true, forContact: false))
        // calls: defaults on both sides.
        #expect(m.calls.enabled == PrefEnabled(forUser: true, forContact: true))
        // fullDelete: off by default.
        #expect(m.fullDelete.enabled == PrefEnabled(forUser: false, forContact: false))
        // Incognito: the user's global preferences are not used.
        let inc = ContactUserPreferences.merged(user: user, override: Preferences(), contact: contact, incognito: true)
        #expect(inc.reactions.enabled == PrefEnabled(forUser: true, forContact: true))
        #expect(inc.reactions.userPreference == .contact(preference: SimplePreference(allow: .yes)))
    }

    @Test func agentUserIdIsAString() throws {
        #expect(try ChatJSON.string(AgentUserId(7)) == #""7""#)
        #expect(try ChatJSON.decode(AgentUserId.self, from: "7").value == 7)
        #expect(try ChatJSON.decode(AgentUserId.self, from: #""12""#).value == 12)
        #expect(throws: (any Error).self) { try ChatJSON.decode(AgentUserId.self, from: #""x""#) }
    }
}
