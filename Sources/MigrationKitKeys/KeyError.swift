import MigrationKit

/// Why a key could not be obtained, stored or deleted.
///
/// Matchable like GRDB's `ResultCode` or swift-system's `Errno`: `catch
/// KeyError.Code.itemNotFound` matches a `KeyError` with that code. `Code` is a struct
/// with static members, not an enum, so codes added later never break a caller's
/// `switch`.
///
/// Every message is one sentence that says what to do next. None ever contains key
/// material: messages are built only from MigrationKit's own text, paths, variable
/// names, Secret Service attribute values (service and account names) and, for
/// failures MigrationKit cannot classify, the Secret Service's own words. GLib's error
/// domain and code are never in it: they are `glibError`, for diagnosis (`migrationkit
/// --verbose` shows them).
public struct KeyError: RemediableError, Sendable {
    /// What went wrong, to match on (`catch let error as KeyError where error.code ==
    /// .keyringLocked`); open, like GRDB's `ResultCode`, so a new code breaks no switch.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, the same as its static property's.
        public let rawValue: String
        /// The code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // MARK: The given password

        /// `KeySource.password` was empty.
        static let passwordEmpty = Code(rawValue: "passwordEmpty")

        // MARK: Key files

        /// The key file does not exist.
        static let keyFileNotFound = Code(rawValue: "keyFileNotFound")
        /// The key file path names a directory.
        static let keyFileIsDirectory = Code(rawValue: "keyFileIsDirectory")
        /// The key file is a FIFO, socket or device rather than a regular file.
        static let keyFileNotRegular = Code(rawValue: "keyFileNotRegular")
        /// The key file cannot be opened or read (no permission, I/O error).
        static let keyFileUnreadable = Code(rawValue: "keyFileUnreadable")
        /// Group or others may write the key file, so someone else could swap the key.
        static let keyFileWritableByOthers = Code(rawValue: "keyFileWritableByOthers")
        /// The key file holds more than `KeySource.maximumKeyLength` bytes.
        static let keyFileTooLarge = Code(rawValue: "keyFileTooLarge")
        /// The key file is empty, or holds only a newline.
        static let keyFileEmpty = Code(rawValue: "keyFileEmpty")

        // MARK: Any source

        /// The key text is UTF-16 (it starts with a UTF-16 byte-order mark).
        static let keyTextNotUTF8 = Code(rawValue: "keyTextNotUTF8")
        /// A key given in hex (`KeySource.hex`) holds something other than hex digits
        /// and the spaces and line breaks between them, or an odd number of digits.
        static let keyTextNotHex = Code(rawValue: "keyTextNotHex")

        // MARK: Environment

        /// The environment variable is not set.
        static let environmentVariableUnset = Code(rawValue: "environmentVariableUnset")
        /// The environment variable is set but empty.
        static let environmentVariableEmpty = Code(rawValue: "environmentVariableEmpty")

        // MARK: Standard input

        /// Standard input is a terminal: typing the key there would echo it.
        static let standardInputIsTerminal = Code(rawValue: "standardInputIsTerminal")
        /// Standard input was empty, or held only a newline.
        static let standardInputEmpty = Code(rawValue: "standardInputEmpty")
        /// Standard input held more than `KeySource.maximumKeyLength` bytes.
        static let standardInputTooLarge = Code(rawValue: "standardInputTooLarge")
        /// Standard input could not be read (closed, I/O error).
        static let standardInputUnreadable = Code(rawValue: "standardInputUnreadable")

        // MARK: Key command

        /// The key command's line is empty, or a quote in it is not closed.
        static let keyCommandInvalid = Code(rawValue: "keyCommandInvalid")
        /// The key command's program is not an executable file (in `PATH`).
        static let keyCommandNotFound = Code(rawValue: "keyCommandNotFound")
        /// The key command exited with a status other than 0, was ended by a signal, or
        /// could not be started.
        static let keyCommandFailed = Code(rawValue: "keyCommandFailed")
        /// The key command did not end within its time bound, and was killed.
        static let keyCommandTimedOut = Code(rawValue: "keyCommandTimedOut")
        /// The key command printed nothing, or only a line break.
        static let keyCommandEmpty = Code(rawValue: "keyCommandEmpty")
        /// The key command printed more than `KeySource.maximumKeyLength` bytes.
        static let keyCommandTooLarge = Code(rawValue: "keyCommandTooLarge")

        // MARK: Prompt

        /// A prompt was asked for, but standard input is not a terminal.
        static let notATerminal = Code(rawValue: "notATerminal")
        /// The terminal could not be switched to no-echo mode, or read from.
        static let terminalFailed = Code(rawValue: "terminalFailed")
        /// An empty line was entered at the prompt.
        static let promptEmpty = Code(rawValue: "promptEmpty")
        /// The prompt reached end of input (Ctrl-D) before a line was entered.
        static let promptCancelled = Code(rawValue: "promptCancelled")
        /// A line longer than `KeySource.maximumKeyLength` bytes was entered.
        static let promptTooLong = Code(rawValue: "promptTooLong")
        /// The confirmation entry differs from the first entry.
        static let promptMismatch = Code(rawValue: "promptMismatch")

        // MARK: Secret Service

        /// libsecret (`libsecret-1.so.0`), through which the Secret Service is reached,
        /// could not be loaded; it is loaded when a Secret Service key is first used.
        public static let libsecretUnavailable = Code(rawValue: "libsecretUnavailable")
        /// There is no D-Bus session bus to reach the Secret Service on.
        public static let noSessionBus = Code(rawValue: "noSessionBus")
        /// The session bus has no Secret Service provider (and none could be started).
        public static let noSecretService = Code(rawValue: "noSecretService")
        /// No item has these service and account attributes (in either attribute form).
        public static let itemNotFound = Code(rawValue: "itemNotFound")
        /// The item exists but its secret is empty, which is not a usable key.
        static let itemEmpty = Code(rawValue: "itemEmpty")
        /// The item, or the keyring to store into, is locked and could not be unlocked.
        public static let keyringLocked = Code(rawValue: "keyringLocked")
        /// A service or account name was empty.
        static let invalidItemName = Code(rawValue: "invalidItemName")
        /// The Secret Service did not answer in time (`SecretServiceKeyStore.timeout`),
        /// or left the bus with the request unanswered: its daemon stopped, exited or
        /// restarted, or waits for a keyring to be unlocked. Also a request a store of a
        /// `SecretServiceKeyStore.Batch` did not make, as an earlier one went unanswered.
        public static let secretServiceNotAnswering = Code(rawValue: "secretServiceNotAnswering")
        /// The Secret Service refused the request or failed in a way not listed above.
        public static let secretServiceFailed = Code(rawValue: "secretServiceFailed")
        /// A key given to `store` that SQLCipher could not use: an empty passphrase, or
        /// a raw key that is not 32 bytes. (Keys read from a source never are.)
        static let unusableKey = Code(rawValue: "unusableKey")
        /// A key given to `store` whose text form would be read back as another key: a
        /// passphrase that ends in a line break or starts with a byte-order mark (such
        /// a key, read from a hex source, stays in one).
        static let keyNotStorableAsText = Code(rawValue: "keyNotStorableAsText")
        /// Several items have the service and account (as `account` or as `username`)
        /// and hold different keys: which one opens the database is not guessed.
        public static let ambiguousItems = Code(rawValue: "ambiguousItems")

        /// `catch KeyError.Code.itemNotFound` matches a `KeyError` with that code.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? KeyError)?.code == pattern
        }
    }

    /// A GLib error's identity, kept for diagnosis; never its only explanation.
    package struct GLibError: Hashable, Sendable, CustomStringConvertible {
        /// The error domain's name, e.g. `g-dbus-error-quark`.
        let domain: String
        /// The error's code within its domain.
        let code: Int32
        /// The D-Bus error name the Secret Service answered with, when it sent one
        /// (`org.freedesktop.Secret.Error.IsLocked`).
        let remoteName: String?

        /// The identity of a GLib error from its domain's name and its code, and the
        /// D-Bus error name when the error came from the other end of the bus.
        package init(domain: String, code: Int32, remoteName: String? = nil) {
            self.domain = domain
            self.code = code
            self.remoteName = remoteName
        }

        /// "g-dbus-error-quark 4", "secret-error 2 (org.freedesktop.Secret.Error.IsLocked)".
        package var description: String { "\(domain) \(code)" + (remoteName.map { " (\($0))" } ?? "") }
    }

    /// What went wrong, to match on.
    public let code: Code
    /// One sentence saying what went wrong and what to do.
    public let message: String
    /// The key file concerned, when there is one.
    public let path: String?
    /// The underlying GLib error, for Secret Service failures: for diagnosis, never in
    /// the sentence.
    package let glibError: GLibError?
    /// The message's parts, when what to do includes a remedy a command line words
    /// itself (which flag gives the key another way); `message` is the library's words.
    package let advice: Advice?
    /// The signal that interrupted a prompt (`.promptCancelled`), whose handler let the
    /// process live on: a command line ends by it, as the signal would have ended it.
    package let signal: Int32?
    /// For a key command that failed: what happened, without naming the command ("the
    /// command failed with exit status 1"), for a sentence that names it already.
    package var commandCause: String? = nil

    /// An error whose message is the whole sentence, with no remedy a command line
    /// words itself.
    package init(code: Code, message: String, path: String? = nil, glibError: GLibError? = nil) {
        self.init(code: code, message: message, path: path, glibError: glibError, signal: nil)
    }

    /// A prompt interrupted by `signal`.
    package init(code: Code, message: String, path: String? = nil, glibError: GLibError? = nil, signal: Int32?) {
        self.code = code
        self.message = message
        self.path = path
        self.glibError = glibError
        self.advice = nil
        self.signal = signal
    }

    /// An error whose sentence is built from `advice`: the library's words in
    /// `message`, a command line's through `sentence(_:)`.
    package init(code: Code, advice: Advice, path: String? = nil, glibError: GLibError? = nil) {
        self.code = code
        self.message = advice.sentence()
        self.path = path
        self.glibError = glibError
        self.advice = advice
        signal = nil
    }

    public var remedy: Remedy? { advice?.remedy }

    /// The message, with the remedy in `wording`'s words; GLib's domain and code are
    /// `glibError`'s, not the sentence's.
    public func sentence(_ wording: RemedyWording) -> String {
        advice?.sentence(wording) ?? message
    }
}

/// Something worth telling the user about a key that was nevertheless obtained, such as
/// a key file other users can read. Like `KeyError`, it never contains key material.
public struct KeyWarning: Hashable, Sendable, CustomStringConvertible {
    /// Which warning this is, to match on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, the same as its static property's.
        public let rawValue: String
        /// The code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Group or others may read the key file (the fix is `chmod 600`).
        public static let keyFileReadableByOthers = Code(rawValue: "keyFileReadableByOthers")
        /// The key text starts with `x'` and ends with `'` but is not exactly 64, 96 or 160
        /// hex digits, so it is used as a passphrase, which is probably not what was meant.
        public static let malformedRawKey = Code(rawValue: "malformedRawKey")
        /// The key text is 64, 96 or 160 hex digits without `x'…'`: a passphrase to SQLCipher,
        /// though apps that store a raw key that way mean the raw key.
        public static let bareRawKey = Code(rawValue: "bareRawKey")
        /// The key text (a passphrase) starts or ends with a space or a tab, which are part
        /// of the key (only line breaks at its end are dropped): a store or a command that
        /// pads its output gives another key than the one written there.
        public static let keySurroundedBySpace = Code(rawValue: "keySurroundedBySpace")
    }

    /// Which warning this is.
    public let code: Code
    /// One sentence, with the fix when there is one.
    public let message: String
    /// The key file concerned, when there is one.
    public let path: String?

    /// A warning with its sentence and, for a key file, its path.
    package init(code: Code, message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { message }
}
