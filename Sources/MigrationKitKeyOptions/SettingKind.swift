/// What a setting's value must look like, in `migrationkit.toml` and its `MIGRATIONKIT_*`
/// variable: the kinds of `ProjectSetting`, here because each key source names the kind
/// of its settings (`KeySourceDescriptor.Parameter.setting`).
package enum SettingKind: Sendable {
    /// A file or folder; in the file, relative to the file's own folder.
    case path
    case text
    case wholeNumber
    case seconds
    case flag
}
