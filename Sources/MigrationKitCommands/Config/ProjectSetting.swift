import MigrationKitFiles

/// A setting that a flag, a `MIGRATIONKIT_*` environment variable and
/// `migrationkit.toml` can each give, named like its long option.
///
/// Precedence is flags, then the environment, then the file, then the default; the key
/// source settings go as one group (see `ProjectSettings`) and come from the list of key
/// sources (`KeySources`). A key itself is never one of them.
struct ProjectSetting: Hashable, Sendable {
    /// The long option's name, the file's key: `db-path` (the one exception:
    /// `migrations-layout`, whose option is `--layout`).
    let rawValue: String
    /// What a value must look like.
    package let kind: Kind
    /// A path whose `-` means standard input, kept as written (`password-file`).
    var dashIsStandardInput = false
    /// One of a key source's values (`KeySources`), rather than a setting of its own.
    var isKeySource = false

    package static let dbPath = ProjectSetting(rawValue: "db-path", kind: .path)
    package static let migrations = ProjectSetting(rawValue: "migrations", kind: .path)
    /// The migrations folder's layout; its option is `--layout`.
    static let migrationsLayout = ProjectSetting(rawValue: "migrations-layout", kind: .text)
    package static let plaintext = ProjectSetting(rawValue: "plaintext", kind: .flag)
    static let cipherCompatibility = ProjectSetting(rawValue: "cipher-compatibility", kind: .wholeNumber)
    package static let kdfIterations = ProjectSetting(rawValue: "kdf-iter", kind: .wholeNumber)
    static let cipherPageSize = ProjectSetting(rawValue: "cipher-page-size", kind: .wholeNumber)
    static let cipherKDFAlgorithm = ProjectSetting(rawValue: "cipher-kdf-algorithm", kind: .text)
    static let cipherHMACAlgorithm = ProjectSetting(rawValue: "cipher-hmac-algorithm", kind: .text)
    static let cipherPlaintextHeaderSize = ProjectSetting(rawValue: "cipher-plaintext-header-size", kind: .wholeNumber)
    static let cipherSalt = ProjectSetting(rawValue: "cipher-salt", kind: .text)
    static let cipherUseHMAC = ProjectSetting(rawValue: "cipher-use-hmac", kind: .flag)
    package static let lockTimeout = ProjectSetting(rawValue: "lock-timeout", kind: .seconds)
    static let keyCommandTimeout = ProjectSetting(rawValue: "key-command-timeout", kind: .seconds)
    static let backupDirectory = ProjectSetting(rawValue: "backup-dir", kind: .path)
    package static let memorySecurity = ProjectSetting(rawValue: "memory-security", kind: .flag)
    /// `migrate`'s `--accept-existing-tables`: the app creates tables before its first
    /// migration, so a database with tables and no ledger is migrated as it is.
    static let acceptExistingTables = ProjectSetting(rawValue: "accept-existing-tables", kind: .flag)
    /// The app's extensions, loaded into every connection (`ExtensionOptions`).
    static let loadExtension = ProjectSetting(rawValue: "load-extension", kind: .pathList)

    /// The key sources' settings (`password-file`, `keychain-service`, …), from the one
    /// list of key sources.
    package static let keySources: [ProjectSetting] = KeySources.settings.map { parameter in
        ProjectSetting(rawValue: parameter.name, kind: parameter.setting ?? .text,
                       dashIsStandardInput: parameter.dashIsStandardInput, isKeySource: true)
    }

    /// Every setting, in the order `config` shows them.
    static let allCases: [ProjectSetting] = [dbPath, migrations, migrationsLayout] + keySources + [
        plaintext, cipherCompatibility, kdfIterations, cipherPageSize, cipherKDFAlgorithm, cipherHMACAlgorithm,
        cipherPlaintextHeaderSize, cipherSalt, cipherUseHMAC, lockTimeout, keyCommandTimeout, backupDirectory, memorySecurity,
        acceptExistingTables, loadExtension,
    ]

    /// The setting the file or a flag names `name`, if any.
    init?(rawValue name: String) {
        guard let setting = Self.allCases.first(where: { $0.rawValue == name }) else { return nil }
        self = setting
    }

    private init(rawValue: String, kind: Kind, dashIsStandardInput: Bool = false, isKeySource: Bool = false) {
        self.rawValue = rawValue
        self.kind = kind
        self.dashIsStandardInput = dashIsStandardInput
        self.isKeySource = isKeySource
    }

    static func == (lhs: ProjectSetting, rhs: ProjectSetting) -> Bool { lhs.rawValue == rhs.rawValue }
    func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// What a value must look like (the key sources' settings name theirs too).
    typealias Kind = SettingKind

    /// `MIGRATIONKIT_DB_PATH`.
    var environmentVariable: String {
        "MIGRATIONKIT_" + rawValue.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The settings that choose where the key comes from: taken together from one place.
    var choosesTheKeySource: Bool {
        isKeySource || self == .plaintext
    }

    /// Names people reach for that would put a key into the file.
    static let keyNames: Set<String> = ["password", "passphrase", "key", "raw-key", "secret"]

    /// `MIGRATIONKIT_CONFIG` and `MIGRATIONKIT_DATABASE`, for `--config` and `--database`.
    static let configVariable = "MIGRATIONKIT_CONFIG"
    static let databaseVariable = "MIGRATIONKIT_DATABASE"
}

/// Where an effective setting came from, for `migrationkit config` and for messages.
enum SettingOrigin: Equatable, Sendable, CustomStringConvertible {
    case flag
    case environment(variable: String)
    case file(path: String, line: Int?)
    case defaultValue

    var description: String {
        switch self {
        case .flag: return "flag"
        case .environment(let variable): return "environment \(variable)"
        case .file(let path, let line?): return "\(path):\(line)"
        case .file(let path, nil): return path
        case .defaultValue: return "default"
        }
    }

    /// For JSON: `flag`, `environment`, `file`, `default`.
    package var kind: String {
        switch self {
        case .flag: return "flag"
        case .environment: return "environment"
        case .file: return "file"
        case .defaultValue: return "default"
        }
    }
}
