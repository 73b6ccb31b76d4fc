#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import MigrationKit
@_exported import MigrationKitSecrets

/// Where a database key comes from.
///
/// Every source yields the key's text form (see `DatabaseKey.withKeyText`), read by the
/// one rule in `KeyText`: a leading UTF-8 byte-order mark and trailing line breaks are
/// dropped; then exactly `x'<64 hex digits>'` is a raw 32-byte key (96 digits, with its
/// salt; 160, with its HMAC key and salt: `DatabaseKey.RawKeyForm`), anything else a
/// passphrase, byte for byte.
/// Secrets are read into wiped storage (`SecretBytes`), never into a Swift `String`,
/// except for `.password`, whose `String` the caller already holds.
///
/// The command-line tool maps each of its key sources onto one of these cases (its list
/// is `KeySources` in MigrationKitCLI; `Keys/README.md` gives the precedence), and,
/// when none is given, uses `implicit(promptMessage:)`.
public enum KeySource: Sendable {
    /// A literal key text. It cannot be wiped, and on a command line other users can see
    /// it in `ps`; prefer the other sources for real keys.
    case password(String)
    /// A key file: the whole file, read by the `KeyText` rule. It must be
    /// a regular file of at most `maximumKeyLength` bytes that group and others cannot
    /// write; if they can read it, the key is used with a `.keyFileReadableByOthers` warning.
    case file(path: String)
    /// An environment variable's value, read by the `KeyText` rule.
    case environment(variable: String)
    /// Standard input to its end, read by the `KeyText` rule, at most `maximumKeyLength`
    /// bytes. Refused when standard input is a terminal, where typing would echo the key.
    case standardInput
    /// A no-echo prompt on the terminal; only when standard input is a terminal. With
    /// `confirm`, the key is asked twice and both entries must match (for a new key).
    case prompt(message: String, confirm: Bool = false)
    /// A Secret Service item, through `SecretServiceKeyStore.lookup(service:account:)`.
    case secretService(service: String, account: String)
    /// What a command prints on its standard output (`pass show db`, `vault kv get
    /// -field=key secret/db`), read by the `KeyText` rule as a key file's content is: at
    /// most `maximumKeyLength` bytes, and nothing is refused. The line is split into words
    /// without a shell, quotes as a shell reads them and nothing expanded, or run by
    /// `/bin/sh -c` when it starts with `!`; the command keeps the terminal and its
    /// standard error for its prompts, and must end within 60 seconds (a command line's
    /// `--key-command-timeout`), after which it and its process group are killed. One
    /// that fails, is killed, or prints nothing is a `KeyError` naming the command,
    /// never what it printed.
    case command(String)
    /// The source's text is a passphrase written as hex digits, two per byte (spaces and
    /// line breaks between them ignored), as SQLCipher's `PRAGMA hexkey` takes it: for a
    /// passphrase that is not text, such as SQLCipher for Android's `byte[]` keys. The
    /// source's own rules apply (a key file's permissions and size, a trailing line break
    /// dropped) before the digits are read; the bytes they stand for are the key, none
    /// dropped. `.hex(.file(path: "db.hexkey"))`; a `.hex` inside a `.hex` is the same
    /// as one.
    indirect case hex(KeySource)

    /// The most bytes a key file, standard input or a prompt entry may hold. Real keys are
    /// far shorter (a raw key's text is 67 bytes); the bound keeps a wrong path, such as a
    /// database or a log, from being read whole and used as a key.
    public static let maximumKeyLength = 4096

    /// The variable the command-line tool reads when no key flag is given.
    package static let passwordEnvironmentVariable = "MIGRATIONKIT_PASSWORD"

    /// Whether `MIGRATIONKIT_PASSWORD` gives a key: set and not empty. Set but empty
    /// counts as not set, as it does for every `MIGRATIONKIT_*` variable (an empty
    /// `KEY=` line in a unit file, a CI secret never filled in, mean "not given"); a
    /// command says so (`passwordEnvironmentVariableIsEmpty(in:)`). The value is looked
    /// at in `environment`, never copied.
    package static func passwordEnvironmentVariableGivesKey(in environment: ProcessEnvironment) -> Bool {
        environment.hasValue(passwordEnvironmentVariable)
    }

    /// Whether `MIGRATIONKIT_PASSWORD` is set but empty in `environment`, and so counts as
    /// not set.
    package static func passwordEnvironmentVariableIsEmpty(in environment: ProcessEnvironment) -> Bool {
        environment.isSetButEmpty(passwordEnvironmentVariable)
    }

    /// The source to use when no key flag was given: the `MIGRATIONKIT_PASSWORD`
    /// environment variable when it gives a key (set and not empty), otherwise a
    /// no-echo prompt, which itself fails with `.notATerminal` when standard input is
    /// not a terminal.
    public static func implicit(promptMessage: String, confirm: Bool = false) -> KeySource {
        implicit(promptMessage: promptMessage, confirm: confirm, in: .process)
    }

    /// `implicit(promptMessage:confirm:)` for a running command, whose environment is
    /// `environment`.
    package static func implicit(promptMessage: String, confirm: Bool = false, in environment: ProcessEnvironment) -> KeySource {
        if passwordEnvironmentVariableGivesKey(in: environment) {
            return .environment(variable: passwordEnvironmentVariable)
        }
        return .prompt(message: promptMessage, confirm: confirm)
    }

    /// Obtains the key, writing any warning (e.g. a key file others can read) to standard
    /// error, so a warning is never silently lost. Use `resolve(warn:)` to route them.
    public func resolve() throws -> DatabaseKey {
        try resolve { warning in
            let line = "warning: \(warning.message)\n"
            _ = line.withCString { systemWrite(STDERR_FILENO, $0, strlen($0)) }
        }
    }

    /// Obtains the key, handing each warning to `warn` before returning.
    ///
    /// - Throws: `KeyError`; its `code` says which rule failed.
    public func resolve(warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        try resolve(form: .text, library: nil, reading: .processDefaults, warn: warn)
    }

    /// `resolve(warn:)` for a running command, which reads its environment and standard
    /// input, runs its key commands and calls the Secret Service as `reading` says.
    package func resolve(_ reading: KeyReading, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        try resolve(form: .text, library: nil, reading: reading, warn: warn)
    }

    /// Obtains the key for a connection on the SQLCipher of `library`, handing each
    /// warning to `warn`. A raw key in a form that library would read as a passphrase
    /// (`x'` and 160 hex digits before SQLCipher 4.7.0) is the key all the same: its text
    /// is also the passphrase a database keyed with it before 4.7 opens with, and the
    /// connection never creates a database with it on such a library
    /// (`DatabaseKey.validate()`).
    ///
    /// - Throws: `KeyError`.
    public func resolve(for library: SQLCipherVersion, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        try resolve(form: .text, library: library, reading: .processDefaults, warn: warn)
    }

    /// `resolve(for:warn:)` for a running command, which reads its environment and
    /// standard input, runs its key commands and calls the Secret Service as `reading` says.
    package func resolve(for library: SQLCipherVersion, _ reading: KeyReading, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        try resolve(form: .text, library: library, reading: reading, warn: warn)
    }

    /// Whether the key comes from standard input (`.standardInput`, in hex or not).
    var readsStandardInput: Bool {
        switch self {
        case .standardInput: return true
        case .hex(let source): return source.readsStandardInput
        default: return false
        }
    }

    private func resolve(form: KeyText.Form, library: SQLCipherVersion?, reading: KeyReading, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        switch self {
        case .password(let text):
            return try KeyText.key(
                from: SecretBytes(copying: text.utf8), origin: "the password given", form: form, library: library,
                empty: KeyError(code: .passwordEmpty, advice: Advice(
                    situation: "The password given is empty, which would leave the database unencrypted",
                    otherwise: "give the key", remedy: .openWithoutKey)),
                warn: warn)

        case .file(let path):
            return try KeyFile(path: path, form: form, library: library).read(warn: warn)

        case .environment(let variable):
            return try Self.readEnvironment(variable, in: reading.environment, form: form, library: library, warn: warn)

        case .standardInput:
            return try Self.readStandardInput(reading.standardInput, form: form, library: library, warn: warn)

        case .prompt(let message, let confirm):
            let text = try TerminalPrompt(message: message, confirm: confirm).read(from: reading.standardInput)
            return try KeyText.key(
                from: text, origin: "the key entered", form: form, library: library,
                empty: KeyError(code: .promptEmpty, message: "An empty key was entered; type the key, then Enter."),
                warn: warn)

        case .secretService(let service, let account):
            return try reading.secretServiceStore.lookup(service: service, account: account, form: form, library: library, warn: warn)

        case .command(let line):
            let command = KeyCommandLine(line)
            return try KeyText.key(
                from: try command.readKeyText(reading), origin: "the key command \(command)", form: form, library: library,
                empty: KeyError(code: .keyCommandEmpty, message: "The key command \(command) printed only a line break; make it print the key on its standard output."),
                warn: warn)

        case .hex(let source):
            return try source.resolve(form: .hex, library: library, reading: reading, warn: warn)
        }
    }

    private static func readEnvironment(_ variable: String, in environment: ProcessEnvironment, form: KeyText.Form, library: SQLCipherVersion?,
                                        warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        // Straight from the environment into wiped storage, never through a String.
        guard let text = environment.withValueBytes(of: variable, { SecretBytes(copying: $0) }) else {
            throw KeyError(code: .environmentVariableUnset, advice: Advice(
                situation: "The environment variable \(variable) is not set", otherwise: "set it to the key", remedy: .keyFromAnotherSource))
        }
        return try KeyText.key(
            from: text, origin: "environment variable \(variable)", form: form, library: library,
            empty: KeyError(code: .environmentVariableEmpty, message: "The environment variable \(variable) is empty; set it to the key, or unset it and pass the key another way."),
            warn: warn)
    }

    private static func readStandardInput(_ input: StandardInput, form: KeyText.Form, library: SQLCipherVersion?,
                                          warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        guard !input.isTerminal else {
            throw KeyError(code: .standardInputIsTerminal, advice: Advice(
                situation: "Standard input is a terminal, where the key would be echoed as it is typed", remedy: .keyFromPipeOrPrompt))
        }
        let text: SecretBytes
        switch BoundedReader.read(fd: input.descriptor, limit: maximumKeyLength) {
        case .text(let bytes):
            text = bytes
        case .tooLarge:
            throw KeyError(code: .standardInputTooLarge, message: "Standard input holds more than \(maximumKeyLength) bytes, so it is not a key; pipe in only the key.")
        case .failed(let code):
            throw KeyError(code: .standardInputUnreadable, advice: Advice(
                situation: "Cannot read the key from standard input (\(errnoDescription(code)))", otherwise: "pipe the key in", remedy: .keyFromFile))
        }
        return try KeyText.key(
            from: text, origin: "standard input", form: form, library: library,
            empty: KeyError(code: .standardInputEmpty, message: "Standard input was empty; pipe the key in (for example `… < db.key`)."),
            warn: warn)
    }
}

extension KeySource: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names the source without its secret: `.password` prints as `password (redacted)`.
    public var description: String {
        switch self {
        case .password: return "password (redacted)"
        case .file(let path): return "key file \(path)"
        case .environment(let variable): return "environment variable \(variable)"
        case .standardInput: return "standard input"
        case .prompt: return "prompt"
        case .secretService(let service, let account): return "Secret Service item (service \(service), account \(account))"
        case .command(let line): return "key command \(KeyCommandLine(line))"
        case .hex(let source): return "\(source), in hex"
        }
    }

    public var debugDescription: String { description }
    /// `dump()` shows the description only, never the `.password` payload.
    public var customMirror: Mirror { Mirror(self, children: ["source": description]) }
}
