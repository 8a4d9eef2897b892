import GRDB
import SimplexStore

/// A row of `users`: one chat profile of this device. `user` is the API's User built from it.
struct UserRecord: FetchableRecord, Equatable {
    var userId: Int64
    var localDisplayName: String
    var profileId: Int64
    var profile: Profile
    var activeUser: Bool
    var activeOrder: Int64
    var autoAcceptMemberContacts: Bool

    init(row: Row) throws {
        self.init(row: row, preferences: ChatController.decodePreferences)
    }

    init(row: some ColumnReading, preferences: (String) -> Preferences?) {
        userId = row["user_id"]
        localDisplayName = row["local_display_name"]
        profileId = row["profile_id"]
        profile = ChatController.publicProfile(row, preferences: preferences)
        activeUser = row["active_user"]
        activeOrder = row["active_order"]
        autoAcceptMemberContacts = row["auto_accept_member_contacts"] ?? false
    }

    /// The whole profile as set (a bot comparing it with the profile it wants finds no
    /// difference), and its preferences with defaults filled in.
    var user: User {
        User(userId: userId, agentUserId: AgentUserId(userId), userContactId: userId, localDisplayName: localDisplayName,
             profile: LocalProfile(profileId: profileId, profile: profile), fullPreferences: .merged(profile.preferences, nil),
             activeUser: activeUser, activeOrder: activeOrder, autoAcceptMemberContacts: autoAcceptMemberContacts)
    }
}
