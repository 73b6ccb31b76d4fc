import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitSQLCipher

struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create the next migration file (NNNN_name.sql, with up and down sections).")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "What the migration does, e.g. add_genre.")
    var name: String

    func validate() throws {
        if MigrationFileName.slug(name).isEmpty {
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
        guard let identifier = MigrationFileName.next(after: existing, name: name) else {
            throw CLIError(.fileError, "\(directory): a migration's number is too large to count on from; name the new file by hand.")
        }
        let path = directory.hasSuffix("/") ? directory + identifier + ".sql" : directory + "/" + identifier + ".sql"
        let template = """
            -- migrate:up


            -- migrate:down


            """
        try DurableFile.writePrivate(Array(template.utf8), to: path, replacing: false)
        reporter.line("Created \(path)")
        try reporter.document(["path": path, "identifier": identifier])
    }
}

/// Names for new migration files: a 4-digit sequence number and a slug.
enum MigrationFileName {
    /// Lowercase letters, digits and single underscores: safe in every shell and file system.
    static func slug(_ name: String) -> String {
        var result = ""
        for scalar in name.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if !result.isEmpty && !result.hasSuffix("_") {
                result.append("_")
            }
        }
        while result.hasSuffix("_") { result.removeLast() }
        return result
    }

    /// `NNNN_slug`, numbered one past the highest numeric prefix among `existing`
    /// (at least 4 digits; timestamp-style prefixes such as 20240101120000 keep growing
    /// past them). Nil when a prefix is too large to count on from.
    static func next(after existing: [String], name: String) -> String? {
        var highest: UInt64 = 0
        for identifier in existing {
            let digits = identifier.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty else { continue }
            guard let number = UInt64(digits) else { return nil }
            highest = max(highest, number)
        }
        let (next, overflow) = highest.addingReportingOverflow(1)
        guard !overflow else { return nil }
        let number = String(next)
        return String(repeating: "0", count: max(0, 4 - number.count)) + number + "_" + slug(name)
    }
}
