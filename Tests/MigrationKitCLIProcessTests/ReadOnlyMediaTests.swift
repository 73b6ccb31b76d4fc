import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `decrypt` from read-only files and folders, as a user the modes apply to. The other
/// read-only media tests are in MigrationKitCLITests.
@Suite struct ReadOnlyMediaTests: ReadOnlyMediaHelpers {
    /// Root reads and writes whatever the modes say, so these run the binary as nobody
    /// when the tests run as root, and as the user themselves otherwise.
    @Test func decryptReadsAReadOnlyFileAndAFileInAReadOnlyFolder() throws {
        try requiringCapability {
            let workspace = try Workspace()
            let files = workspace.path("files")
            let folder = workspace.path("folder")
            let output = workspace.path("out")
            for directory in [files, folder, output] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false) }
            for mode in Self.journalModes {
                try appDatabase(files + "/\(mode).db", key: workspace.key, journalMode: mode)
                try appDatabase(folder + "/\(mode).db", key: workspace.key, journalMode: mode)
            }
            try Guarded.giveToUnprivileged(workspace.root)
            for mode in Self.journalModes { #expect(chmod(files + "/\(mode).db", 0o444) == 0) }
            #expect(chmod(folder, 0o555) == 0)
            let before = [files: try TreeSnapshot(files), folder: try TreeSnapshot(folder)]
            for place in [files, folder] {
                for mode in Self.journalModes {
                    let database = place + "/\(mode).db"
                    let name = (place == files ? "0444-" : "0555-") + mode
                    let decrypt = try Guarded.run(["decrypt", "--db-path", database, "--password-file", workspace.keyFile, "--output", output + "/\(name).db"],
                                                  directory: workspace.root, timeout: 30, user: .unprivileged)
                    #expect(decrypt.status == 0, "\(name): \(decrypt)")
                    #expect(try plaintext(output + "/\(name).db") == "one,two,three\n12\n\(mode)\n", "\(name)")
                    let status = try Guarded.run(["status", "--db-path", database, "--password-file", workspace.keyFile, "--migrations", workspace.migrations],
                                                 directory: workspace.root, timeout: 30, user: .unprivileged)
                    #expect(status.status == 0, "\(name): \(status)")
                    try expectUnchanged(before[place]!, name)
                }
                let fleet = try Guarded.run(["decrypt", "--db-glob", place + "/*.db", "--password-file", workspace.keyFile,
                                             "--output", output + "/fleet-{name}.db", "--force"],
                                            directory: workspace.root, timeout: 30, user: .unprivileged)
                #expect(fleet.status == 0, "fleet in \(place): \(fleet)")
                try expectUnchanged(before[place]!, "fleet in \(place)")
            }
        }
    }
}
