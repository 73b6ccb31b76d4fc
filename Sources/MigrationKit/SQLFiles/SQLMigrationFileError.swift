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
        static let folderMissing = Code(rawValue: "folderMissing")
        /// The migrations folder cannot be used: a symbolic link that leads nowhere, a file
        /// rather than a folder, or a folder that cannot be listed.
        static let folderUnreadable = Code(rawValue: "folderUnreadable")
        /// A migration file cannot be opened or read, or is not a regular file (a FIFO, socket
        /// or device).
        static let fileUnreadable = Code(rawValue: "fileUnreadable")
        /// A migration file is larger than `SQLMigrationDirectory.maximumFileSize`.
        static let fileTooLarge = Code(rawValue: "fileTooLarge")
        /// A migration file is not valid UTF-8 text.
        static let notUTF8 = Code(rawValue: "notUTF8")
        /// A migration file holds a NUL byte, so it is binary rather than SQL text.
        static let containsNUL = Code(rawValue: "containsNUL")
        /// A single-file migration has no `-- migrate:up` line, a down section before it, or SQL
        /// before it that would never run.
        static let upSectionMissing = Code(rawValue: "upSectionMissing")
        /// The up section holds no statement, only blanks, comments or `;`.
        static let upSectionEmpty = Code(rawValue: "upSectionEmpty")
        /// A single-file migration has a second `-- migrate:up` or `-- migrate:down` line.
        static let duplicateSection = Code(rawValue: "duplicateSection")
        /// A `-- migrate:` line the loader does not accept: an unknown directive or option (such
        /// as `transaction:false`), a directive out of place, or any in an `.up.sql` or
        /// `.down.sql` file; a section line of another layout than the folder's; an
        /// annotation goose does not read.
        static let unsupportedOption = Code(rawValue: "unsupportedOption")
        /// A `.down.sql` file has no `.up.sql` file of the same name (in a layout that pairs
        /// files by version, no up file of its version).
        static let downWithoutUp = Code(rawValue: "downWithoutUp")
        /// A file name that cannot be an identifier: empty, or holding control characters.
        static let invalidName = Code(rawValue: "invalidName")
        /// Two files give one identifier (both forms, or a merged step's file still there).
        static let duplicateIdentifier = Code(rawValue: "duplicateIdentifier")
        /// The folder's files would apply (in byte-wise order of their names) in another
        /// order than their numbers say: `V10__b` before `V9__a`, `10_b` before `9_a`.
        package static let misnumbered = Code(rawValue: "misnumbered")
        /// The folder holds migrations of two layouts (`MigrationFolderLayout`), such as a
        /// goose file beside a Flyway one, and no layout was named to read it in.
        static let mixedLayouts = Code(rawValue: "mixedLayouts")
        /// A file (or a folder) whose name the folder's layout does not read as a migration,
        /// which that layout's tool would not run: a Flyway folder's `0001_x.sql`, a diesel
        /// folder's migration without `up.sql`.
        static let nameOutsideLayout = Code(rawValue: "nameOutsideLayout")
        /// Two migrations (or two down files) of one version in a layout that orders by
        /// version: two files numbered 3.
        static let duplicateVersion = Code(rawValue: "duplicateVersion")
        /// A goose `StatementBegin` without its `StatementEnd` (or the other way round).
        static let misplacedDirective = Code(rawValue: "misplacedDirective")
        /// The folder holds files or folders that are migrations of a kind no layout
        /// here reads (SQLDelight's `.sqm` files, Python, Java or Kotlin migrations, a
        /// folder of folders), and no migration it reads: refused, never read as a
        /// folder with nothing to do.
        static let noReadableMigration = Code(rawValue: "noReadableMigration")
        /// Migrations the folder's tool runs as code (goose's `.go`, Flyway's Java or
        /// Kotlin, refinery's Rust), which MigrationKit cannot run: one error for them all.
        static let codeMigrations = Code(rawValue: "codeMigrations")
        /// A migration's dependencies (yoyo's `-- depends:` lines) name no migration of the
        /// folder, or make a loop, which that tool refuses too.
        static let unresolvedDependency = Code(rawValue: "unresolvedDependency")
        /// A tool's integrity file does not sum the folder's files as that tool computes it
        /// (Atlas's `atlas.sum`): a file edited, added or removed since it was written, which
        /// that tool refuses too.
        static let sumMismatch = Code(rawValue: "sumMismatch")
        /// Something the folder's tool does that MigrationKit does not: Flyway's repeatable
        /// `R__` migrations and `${…}` placeholders, goose's `ENVSUB ON`.
        static let unsupportedFeature = Code(rawValue: "unsupportedFeature")
        /// No name can be given to a new migration in the folder: its numbers cannot be
        /// counted on from, or the next would not sort after every other.
        package static let noNextName = Code(rawValue: "noNextName")

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
    package let advice: Advice?
    /// The folder's other problems, when loading it found several (each names its own
    /// file), in the order they are reported; this one is the first.
    private(set) var furtherProblems: [SQLMigrationFileError] = []

    /// This problem and the folder's others (`furtherProblems`), one error each.
    public var problems: [SQLMigrationFileError] {
        var first = self
        first.furtherProblems = []
        return [first] + furtherProblems
    }

    /// The first of `problems` with the others as its `furtherProblems`, ordered by
    /// file (then line), or nil when there is none.
    static func combining(_ problems: [SQLMigrationFileError]) -> SQLMigrationFileError? {
        let ordered = problems.flatMap(\.problems).enumerated().sorted { lhs, rhs in
            if lhs.element.path != rhs.element.path { return MigrationIdentifierOrder.precedes(lhs.element.path, rhs.element.path) }
            return (lhs.element.line ?? 0, lhs.offset) < (rhs.element.line ?? 0, rhs.offset)
        }.map(\.element)
        guard var first = ordered.first else { return nil }
        first.furtherProblems = Array(ordered.dropFirst())
        return first
    }

    /// An error whose message is the whole sentence, in the library's words.
    package init(code: Code, path: String, line: Int? = nil, message: String) {
        self.code = code
        self.path = path
        self.line = line
        self.message = message
        self.advice = nil
    }

    /// An error whose sentence offers a remedy each program words itself; `message` is that
    /// sentence in the library's words.
    package init(code: Code, path: String, line: Int? = nil, advice: Advice) {
        self.code = code
        self.path = path
        self.line = line
        self.message = advice.sentence()
        self.advice = advice
    }

    public var remedy: Remedy? { advice?.remedy }

    /// Every problem's sentence (`problemSentences`), one line each.
    public func sentence(_ wording: RemedyWording) -> String {
        problemSentences(wording).joined(separator: "\n")
    }

    /// Each problem's sentence, `path:line: what is wrong and what to do`, this one first;
    /// problems of one kind (one code, one sentence, no line: a folder's hundred files of
    /// the same kind) are one sentence, naming the first file and counting the others.
    package func problemSentences(_ wording: RemedyWording) -> [String] {
        var groups: [(first: SQLMigrationFileError, sentence: String, others: [String])] = []
        for problem in problems {
            let sentence = problem.advice?.sentence(wording) ?? problem.message
            if problem.line == nil, let index = groups.firstIndex(where: { $0.first.line == nil && $0.first.code == problem.code && $0.sentence == sentence }) {
                groups[index].others.append(problem.path)
            } else {
                groups.append((problem, sentence, []))
            }
        }
        return groups.map { group in
            let location = group.first.path + (group.first.line.map { ":\($0)" } ?? "")
            let others = group.others.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
            let more = others.isEmpty ? "" : " (and \(others.count) more like it: \(listing(others)))"
            return "\(location)\(more): \(group.sentence)"
        }
    }
}
