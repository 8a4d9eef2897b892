/// A user's or contact's public profile (TYPES.md Profile), as sent to peers.
public struct Profile: Codable, Sendable, Hashable {
    public var displayName: String
    public var fullName: String
    public var shortDescr: String?
    /// A `data:image/...;base64,` URI.
    public var image: String?
    public var contactLink: String?
    public var preferences: Preferences?
    public var peerType: ChatPeerType?

    public init(
        displayName: String, fullName: String = "", shortDescr: String? = nil, image: String? = nil,
        contactLink: String? = nil, preferences: Preferences? = nil, peerType: ChatPeerType? = nil
    ) {
        self.displayName = displayName
        self.fullName = fullName
        self.shortDescr = shortDescr
        self.image = image
        self.contactLink = contactLink
        self.preferences = preferences
        self.peerType = peerType
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        displayName = try c.v("displayName")
        // Bots and older clients often omit fullName; simplex-chat treats that as "".
        fullName = try c.v("fullName", default: "")
        shortDescr = try c.opt("shortDescr")
        image = try c.opt("image")
        contactLink = try c.opt("contactLink")
        preferences = try c.opt("preferences")
        peerType = try c.opt("peerType")
    }
}

/// Whether a peer is a person or a bot (TYPES.md ChatPeerType).
public enum ChatPeerType: String, Codable, Sendable, Hashable {
    case human, bot
}

/// A profile as stored locally: with its database ID and the user's own alias for it
/// (TYPES.md LocalProfile).
public struct LocalProfile: Codable, Sendable, Hashable {
    public var profileId: Int64
    public var displayName: String
    public var fullName: String
    public var shortDescr: String?
    public var image: String?
    public var contactLink: String?
    public var preferences: Preferences?
    public var peerType: ChatPeerType?
    public var localAlias: String

    public init(profileId: Int64, profile: Profile, localAlias: String = "") {
        self.profileId = profileId
        displayName = profile.displayName
        fullName = profile.fullName
        shortDescr = profile.shortDescr
        image = profile.image
        contactLink = profile.contactLink
        preferences = profile.preferences
        peerType = profile.peerType
        self.localAlias = localAlias
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        profileId = try c.v("profileId")
        displayName = try c.v("displayName")
        fullName = try c.v("fullName", default: "")
        shortDescr = try c.opt("shortDescr")
        image = try c.opt("image")
        contactLink = try c.opt("contactLink")
        preferences = try c.opt("preferences")
        peerType = try c.opt("peerType")
        localAlias = try c.v("localAlias", default: "")
    }

    /// The public part.
    public var profile: Profile {
        Profile(
            displayName: displayName, fullName: fullName, shortDescr: shortDescr, image: image,
            contactLink: contactLink, preferences: preferences, peerType: peerType)
    }
}
