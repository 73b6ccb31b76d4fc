// swift-tools-version:6.1
import PackageDescription

// The tests of MigrationKit for GRDB apps, and the GRDBNotes example.
//
// Apps take `MigrationKitGRDB` and `MigrationKitGRDBCLI` from the repository's root
// package, by URL. Their tests live in a package of their own because GRDB links the
// system libsqlite3, which must never share a process with libsqlcipher (both export
// sqlite3_*), and SwiftPM links every test target of a package into one test binary:
// the root package's tests link libsqlcipher. This package builds the same sources (the
// core, the command layer, the key modules and both GRDB modules, through symbolic links into
// Sources/), so it depends on no path whose name changes with the checkout's folder.
/// GRDB's test files as GRDB builds them: Swift 5 mode; on SQLCipher (the GRDBSQLCipher
/// trait), its `SQLCipher` module and encrypted test databases (`GRDBCIPHER_USE_ENCRYPTION`).
let grdbsOwnTestSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v5),
    .define("SQLCipher", .when(traits: ["GRDBSQLCipher"])),
    .define("GRDBCIPHER_USE_ENCRYPTION", .when(traits: ["GRDBSQLCipher"])),
]

let package = Package(
    name: "MigrationKitGRDB",
    products: [
        .library(name: "MigrationKitGRDB", targets: ["MigrationKitGRDB"]),
        .library(name: "MigrationKitGRDBCLI", targets: ["MigrationKitGRDBCLI"]),
    ],
    traits: [
        // As the root package's: on in the grdb-sqlcipher configuration
        // (Integrations/GRDBSQLCipher, `swift build --traits GRDBSQLCipher`).
        .trait(name: "GRDBSQLCipher", description: "GRDB is built on SQLCipher: the tests check the encrypted path (the commands find SQLCipher by themselves)."),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The commands, as the main package builds them.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // migrationkit.toml, for the command layer's project settings.
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // `make docs`: MigrationKitGRDB's DocC, built on GRDB over SQLCipher
        // (Integrations/GRDBSQLCipher) so that the encrypted path is documented.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "MigrationKit", dependencies: ["CLibCrypto"]),
        // Locks, durable writes, scratch folders, signals: the main package's file module.
        .target(name: "MigrationKitFiles", dependencies: [
            "MigrationKit", "MigrationKitSecrets", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Keys in wiped, locked memory, and where they come from (files, the environment,
        // a prompt, the Secret Service): for a GRDB built on SQLCipher, as the main
        // package builds them.
        .target(name: "MigrationKitSecrets"),
        // libsecret, loaded when a keyring is first used (the main package's loader).
        .target(name: "CLibSecretLoader"),
        .target(name: "CProcessControl"),
        .target(name: "MigrationKitKeys", dependencies: [
            "MigrationKit", "MigrationKitSecrets", "CLibSecretLoader", "CProcessControl",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The command layer (the main package's MigrationKitCommands): the one list of
        // commands, the key sources as options, settings, backups, fleets, output and
        // sentences, over a database layer.
        .target(name: "MigrationKitCommands", dependencies: [
            "MigrationKit", "MigrationKitFiles", "MigrationKitSecrets", "MigrationKitKeys", "CProcessControl",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "TOMLKit", package: "TOMLKit"),
        ]),
        // Checksums (OpenSSL's libcrypto), as the main package computes them.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "MigrationKitGRDB", dependencies: [
            "MigrationKit", "MigrationKitSecrets", "MigrationKitFiles",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // The command layer over the app's GRDB writer, for its own binary
        // (GRDBMigrationCLI.run(host:arguments:)).
        .target(name: "MigrationKitGRDBCLI", dependencies: [
            "MigrationKit", "MigrationKitCommands", "MigrationKitGRDB", "MigrationKitSecrets",
            "MigrationKitKeys", "MigrationKitFiles",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),        // The example app of the README's GRDB section (Examples/GRDBNotes, through a
        // symbolic link like the core's sources); the tests run the binary.
        .executableTarget(name: "grdb-notes", dependencies: [
            "MigrationKit", "MigrationKitGRDB", "MigrationKitGRDBCLI",
            .product(name: "GRDB", package: "GRDB.swift"),
        ], path: "Examples/GRDBNotes"),
        // Case 10 of `make bench`: GRDB's DatabaseMigrator against the runner
        // (Benchmarks/GRDBMigrator, through a symbolic link like the example's).
        .executableTarget(name: "grdb-migrator-bench", dependencies: [
            "MigrationKit", "MigrationKitGRDB", .product(name: "GRDB", package: "GRDB.swift"),
        ], path: "Benchmarks/GRDBMigrator"),
        // Scratch database files for both test targets.
        .target(name: "GRDBTestSupport", dependencies: [.product(name: "GRDB", package: "GRDB.swift")], path: "Tests/GRDBTestSupport"),
        // Child processes with a time limit and the `sqlcipher` shell, as the main
        // package's tests have them (Tests/TestSupport, through a symbolic link).
        .target(name: "MigrationKitTestSupport", dependencies: ["CProcessControl"], path: "Tests/TestSupport"),
        // GRDB's own tests of its migrator (DatabaseMigratorTests/README.md): symbolic links
        // into the GRDB checkout SwiftPM resolved, compiled unchanged twice, on GRDB's
        // DatabaseMigrator and, through a one-line shim, on GRDBMigrationRunner
        // (scripts/grdb-migrator-tests.sh compares them). In GRDB's own language mode;
        // on SQLCipher, as GRDB's encrypted test runs build them.
        .testTarget(name: "DatabaseMigratorTestsOnGRDB", dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
                    path: "DatabaseMigratorTests/OnGRDB", resources: [.copy("Resources")], swiftSettings: grdbsOwnTestSettings),
        .testTarget(name: "DatabaseMigratorTestsOnRunner", dependencies: ["MigrationKitGRDB", .product(name: "GRDB", package: "GRDB.swift")],
                    path: "DatabaseMigratorTests/OnRunner", resources: [.copy("Resources")], swiftSettings: grdbsOwnTestSettings),
        .testTarget(name: "MigrationKitGRDBTests", dependencies: [
            "MigrationKitGRDB", "MigrationKit", "MigrationKitFiles", "MigrationKitSecrets", "MigrationKitKeys", "GRDBTestSupport", "MigrationKitTestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // The commands, in process and through the example app's binary.
        .testTarget(name: "MigrationKitGRDBCLITests", dependencies: [
            "MigrationKitGRDBCLI", "MigrationKitCommands", "MigrationKitGRDB", "MigrationKit", "MigrationKitFiles", "grdb-notes", "GRDBTestSupport",
            // The encrypted example's tests: the sqlcipher shell, and a key in the private keyring.
            "MigrationKitTestSupport", "MigrationKitKeys",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
