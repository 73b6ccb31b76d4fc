import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--systemd-credential` in a real transient unit. The other systemd credential tests
/// are in MigrationKitCLITests.
@Suite struct SystemdCredentialTests: SystemdCredentialHelpers {
    /// A real unit: `systemd-run` with `LoadCredential=`, where systemd is this machine's
    /// init and the tests run as root (a container without systemd skips it).
    @Test(.enabled(if: SystemdCredentialTests.systemdRunWorks, "needs systemd as PID 1 and root for systemd-run"))
    func aTransientUnitWithLoadCredentialOpensTheDatabase() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        let run = try ChildProcess.run(["/usr/bin/systemd-run", "--wait", "--pipe", "--quiet", "--collect",
                                        "-p", "LoadCredential=db.key:\(workspace.keyFile)",
                                        Binary.migrationkit, "status", "--db-path", workspace.database, "--migrations", workspace.migrations,
                                        "--systemd-credential", "db.key"], environment: service(nil), timeout: 60)
        #expect(run.status == 0 && run.stdout.contains("2 applied"), "\(run.output)")
        #expect(!run.output.contains(workspace.key.secret))
    }

    static var systemdRunWorks: Bool {
        geteuid() == 0 && FileManager.default.fileExists(atPath: "/run/systemd/system")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-run")
    }
}
