import Foundation
import MigrationKitCLITestSupport
import MigrationKitSQLCipher
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
}
