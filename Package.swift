// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MigrationKit",
    products: [
        .library(name: "MigrationKit", targets: ["MigrationKit"]),
        .library(name: "MigrationKitSQLCipher", targets: ["MigrationKitSQLCipher"]),
    ],
    targets: [
        // Core: steps, registry, errors. Pure Swift, no C, no database.
        .target(name: "MigrationKit"),

        // SQLCipher through the system library (apt: libsqlcipher-dev).
        // Never libsqlite3: both export the same sqlite3_* symbols.
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        .target(name: "MigrationKitSQLCipher", dependencies: ["MigrationKit", "CSQLCipher"]),

        .executableTarget(
            name: "migrationkit-library-demo",
            dependencies: ["MigrationKitSQLCipher"],
            path: "Examples/LibraryDemo"
        ),

        .testTarget(name: "MigrationKitTests", dependencies: ["MigrationKit"]),
        .testTarget(name: "MigrationKitSQLCipherTests", dependencies: ["MigrationKitSQLCipher"]),

        // Fuzzes the SQL text handling: a replay tool by default, a libFuzzer
        // target when built by scripts/fuzz.sh.
        .executableTarget(name: "MigrationKitFuzz", dependencies: ["MigrationKit"]),
    ],
    swiftLanguageModes: [.v6]
)
