/// A migrations folder or file that cannot be used. Each names the file and says what
/// to do; none is raised after a database was touched, since loading comes first.
public struct SQLMigrationFileError: RemediableError, Hashable, Sendable {
    /// A struct with static members so new codes never break a caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let folderMissing = Code(rawValue: "folderMissing")
        public static let folderUnreadable = Code(rawValue: "folderUnreadable")
        public static let fileUnreadable = Code(rawValue: "fileUnreadable")
        public static let fileTooLarge = Code(rawValue: "fileTooLarge")
        public static let notUTF8 = Code(rawValue: "notUTF8")
        public static let containsNUL = Code(rawValue: "containsNUL")
        public static let upSectionMissing = Code(rawValue: "upSectionMissing")
        public static let upSectionEmpty = Code(rawValue: "upSectionEmpty")
        public static let duplicateSection = Code(rawValue: "duplicateSection")
        public static let unsupportedOption = Code(rawValue: "unsupportedOption")
        public static let downWithoutUp = Code(rawValue: "downWithoutUp")
        public static let invalidName = Code(rawValue: "invalidName")
        /// Two files give one identifier (both forms, or a merged step's file still there).
        public static let duplicateIdentifier = Code(rawValue: "duplicateIdentifier")

        /// `catch SQLMigrationFileError.Code.notUTF8` matches an error with that code.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? SQLMigrationFileError)?.code == pattern
        }
    }

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

    public init(code: Code, path: String, line: Int? = nil, message: String) {
        self.code = code
        self.path = path
        self.line = line
        self.message = message
        self.advice = nil
    }

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
