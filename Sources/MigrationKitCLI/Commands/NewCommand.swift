import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct NewCommand: UsesProjectConnection, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create the next migration file (NNNN_name.sql, with up and down sections), numbered the way the folder already numbers its files.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "What the migration does, e.g. add_genre.")
    var name: String

    func validate() throws {
        if MigrationNumbering.slug(name).isEmpty {
            throw ValidationError("The name needs at least one letter or digit, e.g. `add_genre`.")
        }
    }

    func run() throws {
        let reporter = Reporter(output)
        CommandSupport.warnIfOnCommandLine(connection.key, reporter: reporter)
        if CLIContext.host.runner != nil {
            throw CLIError(.usage, "This app's migrations are Swift code, so there is no migrations folder to add a file to.")
        }
        let directory = connection.migrations.directory
        // Source code, not a secret: readable by the team, but never world-writable
        // (the umask may be 000).
        try Folders.create(directory, purpose: "migrations folder", mode: 0o755)
        // Names only: the folder may hold a file still being written (an empty up
        // section is an error for migrate, not for adding the next file).
        let existing = try SQLMigrationDirectory(path: directory).identifiers()
        let identifier: String
        do {
            identifier = try MigrationNumbering.next(after: existing, slug: MigrationNumbering.slug(name), now: Self.utcTimestamp())
        } catch let refusal as MigrationNumbering.Refusal {
            throw CLIError(.fileError, "\(directory): \(refusal)")
        }
        let base = directory.hasSuffix("/") ? directory + identifier : directory + "/" + identifier
        let created: [String]
        if Self.usesUpDownFiles(directory) {
            // golang-migrate / sqlx style: a pair of files, as the folder already has.
            try DurableFile.writePrivate(Array("\n".utf8), to: base + ".up.sql", replacing: false)
            try DurableFile.writePrivate(Array("\n".utf8), to: base + ".down.sql", replacing: false)
            created = [base + ".up.sql", base + ".down.sql"]
        } else {
            let template = """
                -- migrate:up


                -- migrate:down


                """
            try DurableFile.writePrivate(Array(template.utf8), to: base + ".sql", replacing: false)
            created = [base + ".sql"]
        }
        reporter.line("Created \(created.joined(separator: " and "))")
        try reporter.document(NewDocument(identifier: identifier, path: created[0], files: created))
    }
}

extension NewCommand {
    /// Whether the folder's migrations are `.up.sql`/`.down.sql` pairs and none is a
    /// dbmate-style single file.
    static func usesUpDownFiles(_ directory: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let pairs = names.contains { $0.hasSuffix(".up.sql") }
        let singles = names.contains { $0.hasSuffix(".sql") && !$0.hasSuffix(".up.sql") && !$0.hasSuffix(".down.sql") }
        return pairs && !singles
    }

    /// Now, in UTC, as `YYYYMMDDHHMMSS`: the number a timestamp-numbered folder's next file gets.
    static func utcTimestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date())
    }
}

/// What `new --json` prints.
struct NewDocument: Encodable {
    let identifier: String
    /// The file to write the up SQL into.
    let path: String
    /// Every file created (one, or an .up.sql and a .down.sql).
    let files: [String]
}
