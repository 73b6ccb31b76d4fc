/// What a setting's value must look like, in `migrationkit.toml` and its `MIGRATIONKIT_*`
/// variable: the kinds of `ProjectSetting`, here because each key source names the kind
/// of its settings (`KeySourceDescriptor.Parameter.setting`).
enum SettingKind: Sendable {
    /// A file or folder; in the file, relative to the file's own folder.
    case path
    case text
    case wholeNumber
    case seconds
    case flag
    /// Several paths (an extension's `PATH[:ENTRY]`): in the file a list of them, or one;
    /// in the variable separated by `;`. A path with a `/` is relative to the file's
    /// folder; a bare name is left for the system's library search.
    case pathList
}

extension SettingKind {
    /// A `.flag` setting's value as a person types it in a variable or an option:
    /// true, yes, on or 1; false, no, off or 0 (any case). Nil for anything else.
    static func flagValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: return nil
        }
    }
}
