import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// The binaries a user runs are built against the same SQLCipher as the library the
/// tests load: SwiftPM once linked the executables against the system's SQLCipher 4
/// while the test bundle used 3.4.1, and every test still passed.
@Suite struct PlatformTests {
    @Test(arguments: ["migrationkit", "notes-migrate"])
    func theBuiltBinaryReportsTheLibrarysSQLCipherVersion(_ product: String) throws {
        let workspace = try Workspace()
        let binary = Binary.productsDirectory.appendingPathComponent(product).path
        let status = try Binary.run(["status", "--json", "--db-path", workspace.path("missing.db"), "--migrations", workspace.migrations],
                                    executable: binary)
        #expect(status.status == 0, "\(status.output)")
        let document = try decodeJSON(status.stdout)
        let reported = try #require(document["sqlcipherVersion"] as? String)
        #expect(reported == SQLCipherLibrary.cipherVersionString)
        #expect(document["sqliteVersion"] as? String == SQLCipherLibrary.sqliteVersion)
        if let expected = TestPlatform.expectedSQLCipherMajor {
            #expect(reported.hasPrefix("\(expected)."), "\(product) reports SQLCipher \(reported), this run is for SQLCipher \(expected)")
        }
    }

    /// `scripts/check-linkage.sh`, which `make test` and `make check` run on every binary
    /// before its tests, on binaries made here to need the libraries in question (stub
    /// libraries with those sonames, the way the linker records them): each SQLCipher 4
    /// soname passes on its own, including Debian sid's `libsqlcipher.so.2`; two SQLites
    /// in one process, two SQLCipher builds in one run, another configuration's library
    /// or a soname not yet tested never do.
    @Test func theLinkageCheckTakesEachSQLCipher4SonameAndNeverTwoSQLites() throws {
        try requiringCapability {
            let linkage = try LinkageFixture()
            defer { try? FileManager.default.removeItem(atPath: linkage.folder) }
            func check(_ configuration: String, _ binaries: [String]) throws -> ChildProcessResult {
                try ChildProcess.run(["/bin/sh", linkage.script, "--binaries", configuration] + binaries.map(linkage.binary), timeout: 60)
            }
            for (configuration, binary, soname) in [("sqlcipher4", "so2", "libsqlcipher.so.2"), ("sqlcipher4", "so1", "libsqlcipher.so.1"),
                                                    ("grdb-sqlcipher", "so2", "libsqlcipher.so.2"), ("sqlcipher3", "so0", "libsqlcipher.so.0"),
                                                    ("grdb", "sqlite", "libsqlite3.so.0")] {
                let passed = try check(configuration, [binary])
                #expect(passed.status == 0 && passed.stderr == "check-linkage: 1 binaries link \(soname) and no other SQLite\n",
                        "\(configuration) \(binary): \(passed.output)")
            }
            let refused: [(String, [String], String)] = [
                ("sqlcipher4", ["so2AndSQLite"], "links libsqlcipher.so.2 beside libsqlite3.so.0: one process would hold two SQLites"),
                ("sqlcipher4", ["so1AndSo2"], "links libsqlcipher.so.1 beside libsqlcipher.so.2: one process would hold two SQLites"),
                ("sqlcipher4", ["so1", "so2"], "links libsqlcipher.so.2, the binaries before it libsqlcipher.so.1: one build links one SQLCipher"),
                ("sqlcipher3", ["so2"], "links libsqlcipher.so.2, which the sqlcipher3 configuration does not take (it takes libsqlcipher.so.0)"),
                ("grdb", ["so2"], "links libsqlcipher.so.2, which the grdb configuration does not take (it takes libsqlite3.so.0)"),
                ("sqlcipher4", ["so3"], "links libsqlcipher.so.3, which the sqlcipher4 configuration does not take (it takes libsqlcipher.so.1 or libsqlcipher.so.2); a newer SQLCipher's soname is added here once the suite has passed on it"),
                ("sqlcipher4", ["noSQLite"], "links no SQLite (the sqlcipher4 configuration takes libsqlcipher.so.1 or libsqlcipher.so.2)"),
            ]
            for (configuration, binaries, reason) in refused {
                let result = try check(configuration, binaries)
                #expect(result.status == 1 && result.stdout.isEmpty
                            && result.stderr == "check-linkage: \(linkage.binary(binaries.last!)) \(reason)\n",
                        "\(configuration) \(binaries): \(result.output)")
            }
        }
    }
}

/// Stub libraries under SQLite's and SQLCipher's sonames, and binaries linked against
/// them, in a folder of their own: what `readelf -d` shows of a real build, without one.
private struct LinkageFixture {
    let folder: String
    let script: String

    init() throws {
        guard let compiler = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"].first(where: FileManager.default.isExecutableFile(atPath:)),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/readelf")
        else { throw CapabilityMissing("a C compiler and readelf (binutils) are needed to make binaries with given sonames") }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("migrationkit-linkage-\(UUID().uuidString)").path
        script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/check-linkage.sh").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        do {
            try make(compiler: compiler)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    private func make(compiler: String) throws {
        try "int sqlite3_libversion_number(void) { return 0; }\n".write(toFile: folder + "/stub.c", atomically: true, encoding: .utf8)
        try "int sqlite3_libversion_number(void);\nint main(void) { return sqlite3_libversion_number(); }\n"
            .write(toFile: folder + "/main.c", atomically: true, encoding: .utf8)
        try "int main(void) { return 0; }\n".write(toFile: folder + "/plain.c", atomically: true, encoding: .utf8)
        func compile(_ arguments: [String]) throws {
            let result = try ChildProcess.run([compiler] + arguments, directory: folder, timeout: 60)
            guard result.status == 0 else { throw CapabilityMissing("\(compiler) \(arguments.joined(separator: " ")) failed: \(result.output)") }
        }
        for soname in ["libsqlite3.so.0", "libsqlcipher.so.0", "libsqlcipher.so.1", "libsqlcipher.so.2", "libsqlcipher.so.3"] {
            try compile(["-shared", "-fPIC", "-Wl,-soname,\(soname)", "-o", soname, "stub.c"])
        }
        // Each NEEDED entry as the linker records it from the library's soname; every
        // library kept (--no-as-needed), as a build that names them links them.
        let binaries = ["so0": ["libsqlcipher.so.0"], "so1": ["libsqlcipher.so.1"], "so2": ["libsqlcipher.so.2"],
                        "so3": ["libsqlcipher.so.3"], "sqlite": ["libsqlite3.so.0"],
                        "so2AndSQLite": ["libsqlcipher.so.2", "libsqlite3.so.0"], "so1AndSo2": ["libsqlcipher.so.1", "libsqlcipher.so.2"]]
        for (name, libraries) in binaries {
            try compile(["-o", name, "main.c", "-L.", "-Wl,--no-as-needed"] + libraries.map { "-l:\($0)" })
        }
        try compile(["-o", "noSQLite", "plain.c"])
    }

    func binary(_ name: String) -> String { folder + "/" + name }
}
