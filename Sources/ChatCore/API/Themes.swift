/// Per-user and per-chat theme overrides (TYPES.md UIThemeEntityOverrides and parts); opaque to
/// the core, stored and returned as the apps set them.

public enum UIColorMode: String, Codable, Sendable, Hashable {
    case light, dark
}

public enum ChatWallpaperScale: String, Codable, Sendable, Hashable {
    case fill, fit, `repeat`
}

public struct ChatWallpaper: Codable, Sendable, Hashable {
    public var preset: String?
    public var imageFile: String?
    public var background: String?
    public var tint: String?
    public var scaleType: ChatWallpaperScale?
    public var scale: Double?
}

public struct UIColors: Codable, Sendable, Hashable {
    public var accent: String?
    public var accentVariant: String?
    public var secondary: String?
    public var secondaryVariant: String?
    public var background: String?
    public var menus: String?
    public var title: String?
    public var accentVariant2: String?
    public var sentMessage: String?
    public var sentReply: String?
    public var receivedMessage: String?
    public var receivedReply: String?
}

public struct UIThemeEntityOverride: Codable, Sendable, Hashable {
    public var mode: UIColorMode
    public var wallpaper: ChatWallpaper?
    public var colors: UIColors
}

public struct UIThemeEntityOverrides: Codable, Sendable, Hashable {
    public var light: UIThemeEntityOverride?
    public var dark: UIThemeEntityOverride?
}
