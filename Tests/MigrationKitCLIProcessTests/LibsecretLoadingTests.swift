import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// libsecret is loaded when a Secret Service key is first used, not linked: a command
/// that never touches a keyring does not start by loading GLib's stack, and on a machine
/// without libsecret every other key source still works. (That the keyring options work
/// when it is there is what every keyring test shows.)
@Suite struct LibsecretLoadingTests {
    /// The libraries the binary names for the dynamic loader to load at start.
    private func neededLibraries(of binary: String) throws -> [String] {
        let result = try ChildProcess.run(["/usr/bin/readelf", "-d", binary])
        #expect(result.status == 0, "\(result.stderr)")
        let lines: [Substring] = result.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        return lines.map { (line: Substring) -> String in
            // "… Shared library: [libsqlcipher.so.1]"
            guard let name = line.split(separator: "[").last?.split(separator: "]").first else { return "" }
            return String(name)
        }
    }

    @Test func theBinaryDoesNotLinkLibsecretOrGLib() throws {
        let needed = try neededLibraries(of: Binary.migrationkit)
        #expect(needed.contains { $0.hasPrefix("libsqlcipher.so.") }, "read no NEEDED entries: \(needed)")
        for library in ["libsecret-1.so.0", "libglib-2.0.so.0", "libgio-2.0.so.0", "libgobject-2.0.so.0"] {
            #expect(!needed.contains(library), "migrationkit links \(library)")
        }
    }

    /// Where the dynamic loader finds libsecret, as `ldconfig -p` lists it.
    private func libsecretPath() throws -> String {
        guard let ldconfig = ["/sbin/ldconfig", "/usr/sbin/ldconfig"].first(where: FileManager.default.isExecutableFile) else {
            throw CapabilityMissing("ldconfig is missing")
        }
        let listing = try ChildProcess.run([ldconfig, "-p"]).stdout
        guard let line = listing.split(separator: "\n").first(where: { $0.contains("libsecret-1.so.0 ") }),
              let path = line.components(separatedBy: " => ").last
        else { throw CapabilityMissing("ldconfig lists no libsecret-1.so.0") }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    @Test func withoutLibsecretAKeyringOptionFailsInOneSentenceAndAKeyFileStillWorks() throws {
        try requiringCapability {
            guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
                throw CapabilityMissing("hiding libsecret takes root and unshare(1): a mount namespace where it is /dev/null")
            }
            let library = try libsecretPath()
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            // In a mount namespace of its own, libsecret's file reads as empty: the loader
            // refuses it as it would a missing one. The machine's own file is untouched.
            func runWithoutLibsecret(_ arguments: [String]) throws -> ChildProcessResult {
                try ChildProcess.run(
                    ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", "mount --bind /dev/null \"$0\" && exec \"$@\"",
                     library, Binary.migrationkit] + arguments,
                    environment: Binary.environment(), directory: workspace.root)
            }

            let keyring = try runWithoutLibsecret([
                "migrate", "--db-path", workspace.database, "--migrations", workspace.migrations,
                "--keychain-service", "libsecret-loading-test", "--keychain-account", "db",
            ])
            #expect(keyring.status == 5, "\(keyring.output)")
            let errors = keyring.stderr.split(separator: "\n")
            #expect(errors.count == 1, "\(keyring.stderr)")
            #expect(keyring.stderr.contains("libsecret could not be loaded"), "\(keyring.stderr)")
            #expect(keyring.stderr.contains("apt install libsecret-1-0"), "\(keyring.stderr)")
            #expect(keyring.stderr.contains("--password-file"), "\(keyring.stderr)")
            #expect(!FileManager.default.fileExists(atPath: workspace.database), "a database was created")

            let keyFile = try runWithoutLibsecret(["migrate"] + workspace.options())
            #expect(keyFile.status == 0, "\(keyFile.output)")
            #expect(FileManager.default.fileExists(atPath: workspace.database))
        }
    }
}
