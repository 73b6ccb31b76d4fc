import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// `migrate --erase-on-schema-change` without `--yes` asks on a terminal (docs/history-tools.md,
/// which the two tests pin):
/// the command reads the answer from its standard input; only the word it asks for goes
/// on, and anything else changes nothing.
@Suite struct ConfirmationTerminalTests {
    /// A database whose history names a migration the folder no longer has.
    private func workspaceWithARemovedMigration() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.up.sql")
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.down.sql")
        return workspace
    }

    private func erase(_ workspace: Workspace, answering answer: String, timeout: Double = 60) throws -> PseudoTerminal.Result {
        var environment = Binary.environment()
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        return try PseudoTerminal.run([Binary.migrationkit, "migrate", "--erase-on-schema-change", "--no-backup"] + workspace.options(),
                                      environment: environment,
                                      steps: [.init(expect: "Type \"erase\" to confirm: ", send: answer)], timeout: timeout)
    }

    @Test func eraseIsAskedOnATerminalAndOnlyTheWordGoesOn() throws {
        let workspace = try workspaceWithARemovedMigration()
        let before = workspace.bytes(workspace.database)
        let declined = try erase(workspace, answering: "no\n")
        #expect(declined.missing == nil && declined.exitCode == .refused, "\(declined.transcript)")
        #expect(declined.transcript.contains("Not confirmed; nothing was changed."), "\(declined.transcript)")
        #expect(workspace.bytes(workspace.database) == before)

        let confirmed = try erase(workspace, answering: "erase\n")
        #expect(confirmed.missing == nil && confirmed.status == 0, "\(confirmed.transcript)")
        let status = try workspace.run("status")
        #expect(status.stdout.contains("applied  0001_authors") && !status.stdout.contains("unknown"), "\(status.output)")
    }

    /// Ctrl-C at the question stops the command at once, as it would anywhere else, with
    /// the database as it was: the wait for an answer does not outlast the stop.
    @Test func ctrlCAtTheQuestionStopsWithNothingChanged() throws {
        let workspace = try workspaceWithARemovedMigration()
        let before = workspace.bytes(workspace.database)
        let stopped = try erase(workspace, answering: "\u{03}", timeout: 30)
        #expect(stopped.missing == nil && !stopped.timedOut, "\(stopped.transcript)")
        #expect(stopped.signal == SIGINT || stopped.status == 130, "\(stopped)")
        #expect(workspace.bytes(workspace.database) == before)
    }
}
