/// How `chat_migrate_init` may treat pending migrations (simplex-chat `MigrationConfirmation`).
public enum MigrationConfirmation: String, Sendable {
    /// Apply upgrades without asking.
    case yesUp
    /// Apply upgrades; downgrades too (we ship no down migrations, so a newer file still fails).
    case yesUpDown
    /// The terminal asks; a library caller gets the same answer as `yesUp`.
    case console
    /// Never migrate an existing file: report the pending migrations instead.
    case error

    public init?(string: String) {
        self.init(rawValue: string)
    }
}
