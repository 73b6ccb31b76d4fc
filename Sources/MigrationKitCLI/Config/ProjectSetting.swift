/// A setting that a flag, a `MIGRATIONKIT_*` environment variable and
/// `migrationkit.toml` can each give, named like its long option.
///
/// Precedence is flags, then the environment, then the file, then the default; the key
/// source settings go as one group (see `ProjectSettings`). A key itself is never one of
/// them: keys come from a key file, the keyring, `MIGRATIONKIT_PASSWORD` or a prompt.
enum ProjectSetting: String, CaseIterable, Sendable {
    case dbPath = "db-path"
    case migrations
    case passwordFile = "password-file"
    case keychainService = "keychain-service"
    case keychainAccount = "keychain-account"
    case plaintext
    case cipherCompatibility = "cipher-compatibility"
    case kdfIterations = "kdf-iter"
    case cipherPageSize = "cipher-page-size"
    case cipherKDFAlgorithm = "cipher-kdf-algorithm"
    case cipherHMACAlgorithm = "cipher-hmac-algorithm"
    case cipherPlaintextHeaderSize = "cipher-plaintext-header-size"
    case cipherSalt = "cipher-salt"
    case lockTimeout = "lock-timeout"
    case backupDirectory = "backup-dir"
    case memorySecurity = "memory-security"

    /// What a value must look like.
    enum Kind: Sendable {
        /// A file or folder; in the file, relative to the file's own folder.
        case path
        case text
        case wholeNumber
        case seconds
        case flag
    }

    var kind: Kind {
        switch self {
        case .dbPath, .migrations, .passwordFile, .backupDirectory: return .path
        case .keychainService, .keychainAccount, .cipherKDFAlgorithm, .cipherHMACAlgorithm, .cipherSalt: return .text
        case .cipherCompatibility, .kdfIterations, .cipherPageSize, .cipherPlaintextHeaderSize: return .wholeNumber
        case .lockTimeout: return .seconds
        case .plaintext, .memorySecurity: return .flag
        }
    }

    /// `MIGRATIONKIT_DB_PATH`.
    var environmentVariable: String {
        "MIGRATIONKIT_" + rawValue.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The settings that choose where the key comes from: taken together from one place.
    var choosesTheKeySource: Bool {
        [.passwordFile, .keychainService, .keychainAccount, .plaintext].contains(self)
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
    var kind: String {
        switch self {
        case .flag: return "flag"
        case .environment: return "environment"
        case .file: return "file"
        case .defaultValue: return "default"
        }
    }
}
