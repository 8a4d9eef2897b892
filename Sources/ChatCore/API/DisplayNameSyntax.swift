/// Display names in terminal commands (simplex-chat `displayNameP` / `viewName`): a name with
/// a space is written in single quotes; a bare name may not start with `#`, `@` or `'`.
extension ChatCommand {
    static func displayName(_ name: String) -> String {
        name.contains(where: \.isWhitespace) ? "'" + name + "'" : name
    }
}
