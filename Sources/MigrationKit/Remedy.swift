import Foundation

/// Something a person can do about a refusal that only the program in front of them can
/// name: a flag of `migrationkit`, a parameter of the library, a setting of an app.
///
/// The libraries never name a command line's flags or commands: an error carries the
/// remedy itself, and whoever shows the sentence words it (`RemedyWording`). The
/// `migrationkit` tool says "pass --allow-out-of-order"; an app's own command line that
/// has no such flag says nothing, and a Swift caller reads the library's words, which
/// name the API. The compiler makes every command line word every remedy.
public enum Remedy: Hashable, Sendable {
    /// Apply pending steps that sort before the latest applied one all the same.
    case allowOutOfOrder
    /// Treat these applied steps' edits as harmless and record their new checksums.
    case acceptModified([String])
    /// Migrate all the same a database whose ledger holds these identifiers, which no
    /// registered step has: another version's steps, or this app's own that it
    /// registers later (a migrator registered in passes).
    case acceptUnknown([String])
    /// Create the migrations folder (with its first migration).
    case createMigrationsFolder
    /// Name the folder that holds the migration files.
    case chooseMigrationsFolder
    /// Name the layout the migrations folder is written in (`MigrationFolderLayout`).
    case nameMigrationsLayout
    /// Open the database without a key: it is not encrypted.
    case openWithoutKey
    /// Encrypt the database where it is rather than into another file.
    case encryptInPlace
    /// Replace the existing output file.
    case replaceOutput
    /// Read the key from a file instead of the source that failed.
    case keyFromFile
    /// Give the key through any other key source.
    case keyFromAnotherSource
    /// Pipe the key into standard input, or be prompted for it on the terminal.
    case keyFromPipeOrPrompt
    /// Wait longer for another process to let go of the database.
    case waitLonger
    /// Let a key command run longer before it is stopped (`KeySource.command`).
    case allowKeyCommandMoreTime
    /// Give the cipher settings the database was made with, if not a known format's:
    /// those that could explain the failure (`CipherSetting.couldExplainUnreadable`).
    case giveCipherSettings([CipherSetting])
    /// Store the right key again for this Secret Service item, which replaces every item
    /// a lookup finds for it (several that hold different keys).
    case storeKeyAgain(service: String, account: String)
    /// Let a built-in collation stand in for this one, which only the app that made the
    /// database registers, while the database is read and copied (`CollationStandIn`).
    case standInForCollation(String)
    /// Give values for these Flyway placeholders (`FlywayPlaceholders`), as Flyway's
    /// configuration gives them.
    case givePlaceholderValues([String])

    /// What a Swift caller of the libraries does: the library's own words.
    var libraryWords: String {
        switch self {
        case .allowOutOfOrder:
            return "allow it (the runner's `allowOutOfOrder`)"
        case .acceptModified(let identifiers):
            return "if the edit changes nothing that matters, accept it (`MigrateOptions.acceptModified`: "
                + identifiers.map { "\"\($0)\"" }.joined(separator: ", ") + ")"
        case .acceptUnknown(let identifiers):
            let one = identifiers.count == 1
            return "if \(one ? "it is a step" : "they are steps") this app registers later (a migrator registered in passes), or this "
                + "version may migrate the database all the same, accept \(one ? "it" : "them") (`MigrateOptions.acceptUnknown`: "
                + identifiers.map { "\"\($0)\"" }.joined(separator: ", ") + ")"
        case .createMigrationsFolder:
            return "create it"
        case .chooseMigrationsFolder:
            return "use the folder that holds the migration files"
        case .nameMigrationsLayout:
            return "name the layout the folder is written in (`SQLMigrationDirectory(path:layout:)`, the runners' `init(directory:layout:)`)"
        case .openWithoutKey:
            return "open it without a key"
        case .encryptInPlace:
            return "encrypt it in place"
        case .replaceOutput:
            return "allow replacing it (`overwrite: true`)"
        case .keyFromFile:
            return "read the key from a file instead"
        case .keyFromAnotherSource:
            return "give the key another way (a key file, the environment, the Secret Service)"
        case .keyFromPipeOrPrompt:
            return "pipe the key in, or prompt for it on the terminal"
        case .waitLonger:
            return "wait longer for it (the lock timeout)"
        case .allowKeyCommandMoreTime:
            return "allow it more time"
        case .giveCipherSettings(let settings):
            return "if the database was made with other cipher settings, give them (`CipherSettings`: "
                + settings.map(\.description).joined(separator: ", ") + ")"
        case .storeKeyAgain:
            return "store the right key again (`SecretServiceKeyStore.store`), which replaces them all"
        case .standInForCollation(let name):
            return "let a built-in collation stand in for \"\(name)\" while copying (`collationStandIns`)"
        case .givePlaceholderValues(let names):
            return "give \(names.count == 1 ? "it a value" : "them values") as Flyway's configuration does (`SQLMigrationDirectory(path:layout:placeholders:)`)"
        }
    }
}

/// How one program names remedies: nil where it offers no such thing (an app's command
/// line without `--allow-out-of-order` leaves that remedy out of its sentences).
public struct RemedyWording: Sendable {
    private let words: @Sendable (Remedy) -> String?

    /// A wording from a function that words each remedy, returning nil for one the program
    /// does not offer.
    package init(_ words: @escaping @Sendable (Remedy) -> String?) {
        self.words = words
    }

    /// The remedy in this program's words, or nil when it offers no such thing.
    func callAsFunction(_ remedy: Remedy) -> String? { words(remedy) }

    /// The libraries' own words, for a Swift caller (and for `description`).
    public static let library = RemedyWording { $0.libraryWords }
}

/// One sentence: what happened, then what to do, where part of what to do may be a
/// remedy each program words in its own terms.
///
/// "The output file already exists; choose another name, or pass --force to replace it."
/// is `Advice(situation: "The output file already exists", otherwise: "choose another
/// name", remedy: .replaceOutput)` worded by the `migrationkit` tool.
package struct Advice: Hashable, Sendable {
    /// What happened, without a final period.
    let situation: String
    /// What anyone can do, whatever the program (nil when only the remedy helps).
    let otherwise: String?
    /// What to do that each program words itself, if anything.
    package let remedy: Remedy?
    /// Sentences said after it (what the linked library cannot read, say), or nil.
    let note: String?

    /// Advice that says `situation`, then `otherwise` and the remedy, whichever are
    /// given, then `note`.
    package init(situation: String, otherwise: String? = nil, remedy: Remedy? = nil, note: String? = nil) {
        self.situation = situation
        self.otherwise = otherwise
        self.remedy = remedy
        self.note = note
    }

    /// The sentence, with the remedy in `wording`'s words (left out when it has none).
    package func sentence(_ wording: RemedyWording = .library) -> String {
        let steps = [otherwise, remedy.flatMap { wording($0) }].compactMap { $0 }
        return situation + (steps.isEmpty ? "." : "; " + steps.joined(separator: ", or ") + ".") + (note.map { " " + $0 } ?? "")
    }
}

/// An error whose sentence may carry a remedy: a command line shows
/// `sentence(wording)` in its own words, a Swift caller `description` in the library's.
public protocol RemediableError: LocalizedError, CustomStringConvertible {
    /// The remedy the sentence offers, if any (for a caller that acts on it itself).
    var remedy: Remedy? { get }
    /// The whole sentence, as `description` says it, with the remedy in `wording`'s words.
    func sentence(_ wording: RemedyWording) -> String
}

extension RemediableError {
    public var description: String { sentence(.library) }
    /// The sentence in the library's words, for `localizedDescription`.
    public var errorDescription: String? { sentence(.library) }
}
