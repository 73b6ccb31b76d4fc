/// A migrations folder or file that cannot be used. Each names the file and says what
/// to do; none is raised after a database was touched, since loading comes first.
public struct SQLMigrationFileError: RemediableError, Hashable, Sendable {
    /// A struct with static members so new codes never break a caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, spelled as its static member (`notUTF8`), for
        /// machine-readable output.
        public let rawValue: String
        /// The code with this stable name.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Nothing exists at the migrations folder's path.
        public static let folderMissing = Code(rawValue: "folderMissing")
        /// The migrations folder cannot be used: a symbolic link that leads nowhere, a file
        /// rather than a folder, or a folder that cannot be listed.
        public static let folderUnreadable = Code(rawValue: "folderUnreadable")
        /// A migration file cannot be opened or read, or is not a regular file (a FIFO, socket
        /// or device).
        public static let fileUnreadable = Code(rawValue: "fileUnreadable")
        /// A migration file is larger than `SQLMigrationDirectory.maximumFileSize`.
        public static let fileTooLarge = Code(rawValue: "fileTooLarge")
        /// A migration file is not valid UTF-8 text.
        public static let notUTF8 = Code(rawValue: "notUTF8")
        /// A migration file holds a NUL byte, so it is binary rather than SQL text.
        public static let containsNUL = Code(rawValue: "containsNUL")
        /// A single-file migration has no `-- migrate:up` line, a down section before it, or SQL
        /// before it that would never run.
        public static let upSectionMissing = Code(rawValue: "upSectionMissing")
        /// The up section holds no statement, only blanks, comments or `;`.
        public static let upSectionEmpty = Code(rawValue: "upSectionEmpty")
        /// A single-file migration has a second `-- migrate:up` or `-- migrate:down` line.
        public static let duplicateSection = Code(rawValue: "duplicateSection")
        /// A `-- migrate:` line the loader does not accept: an unknown directive or option (such
        /// as `transaction:false`), a directive out of place, or any in an `.up.sql` or
        /// `.down.sql` file.
        public static let unsupportedOption = Code(rawValue: "unsupportedOption")
        /// A `.down.sql` file has no `.up.sql` file of the same name.
        public static let downWithoutUp = Code(rawValue: "downWithoutUp")
        /// A file name that cannot be an identifier: empty, or holding control characters.
        public static let invalidName = Code(rawValue: "invalidName")
        /// Two files give one identifier (both forms, or a merged step's file still there).
        public static let duplicateIdentifier = Code(rawValue: "duplicateIdentifier")
        /// The folder's files would apply (in byte-wise order of their names) in another
        /// order than their numbers say: `V10__b` before `V9__a`, `10_b` before `9_a`.
        public static let misnumbered = Code(rawValue: "misnumbered")

        /// `catch SQLMigrationFileError.Code.notUTF8` matches an error with that code.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? SQLMigrationFileError)?.code == pattern
        }
    }

    /// What kind of problem it is, for a caller that acts on it.
    public let code: Code
    /// The file or folder concerned.
    public let path: String
    /// 1-based line, when the problem is on one.
    public let line: Int?
    /// What is wrong and what to do, without the path (see `description`), in the
    /// library's words.
    public let message: String
    /// The message's parts, when what to do includes a remedy a command line words itself.
    public let advice: Advice?

    /// An error whose message is the whole sentence, in the library's words.
    public init(code: Code, path: String, line: Int? = nil, message: String) {
        self.code = code
        self.path = path
        self.line = line
        self.message = message
        self.advice = nil
    }

    /// An error whose sentence offers a remedy each program words itself; `message` is that
    /// sentence in the library's words.
    public init(code: Code, path: String, line: Int? = nil, advice: Advice) {
        self.code = code
        self.path = path
        self.line = line
        self.message = advice.sentence()
        self.advice = advice
    }

    public var remedy: Remedy? { advice?.remedy }

    public func sentence(_ wording: RemedyWording) -> String {
        "\(path)\(line.map { ":\($0)" } ?? ""): \(advice?.sentence(wording) ?? message)"
    }
}
