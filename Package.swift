// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "MigrationKit",
    products: [
        .library(name: "MigrationKit", targets: ["MigrationKit"]),
        .library(name: "MigrationKitSecrets", targets: ["MigrationKitSecrets"]),
        .library(name: "MigrationKitSQLCipher", targets: ["MigrationKitSQLCipher"]),
        .library(name: "MigrationKitKeys", targets: ["MigrationKitKeys"]),
        .library(name: "MigrationKitCommands", targets: ["MigrationKitCommands"]),
        .library(name: "MigrationKitCLI", targets: ["MigrationKitCLI"]),
        .executable(name: "migrationkit", targets: ["migrationkit"]),
        // For GRDB apps, over GRDB on the system's SQLite. An app takes these or the
        // SQLCipher products above, never both: each family links its own SQLite, and
        // only the targets an app names are built and linked into it.
        .library(name: "MigrationKitGRDB", targets: ["MigrationKitGRDB"]),
        .library(name: "MigrationKitGRDBCLI", targets: ["MigrationKitGRDBCLI"]),
    ],
    traits: [
        // For a GRDB app whose GRDB is built on the system's SQLCipher
        // (scripts/grdb-sqlcipher.sh). The GRDB commands find SQLCipher under GRDB by
        // themselves and take key options then; the trait says which flavour a build is
        // for (its tests check the encrypted path), and apps that name it keep building.
        .trait(name: "GRDBSQLCipher",
               description: "For a GRDB built on SQLCipher by scripts/grdb-sqlcipher.sh: the GRDB commands then take key options (found at run time; the trait names the flavour)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // migrationkit.toml (toml++ inside).
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // File descriptors whose reads and writes retry EINTR and short writes
        // (FileDescriptor.writeAll, read(into:)), instead of loops written by hand.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The GRDB products only. SwiftPM resolves it for every app that depends on
        // this package, and builds it only for one that uses a GRDB product.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // `make docs`: the library products' DocC catalogs (swift package
        // generate-documentation). A plugin only: nothing of it is linked into an app.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Core: steps, registry, errors. No database; OpenSSL's libcrypto for the
        // checksums it compares (its own and other tools').
        .target(name: "MigrationKit", dependencies: ["CLibCrypto"]),

        // What MigrationKit does with files besides opening them as databases: change
        // locks, durable private writes, scratch folders, what a path is, stopping on a
        // signal. No SQLite: both connections and the shared commands stand on it.
        .target(name: "MigrationKitFiles", dependencies: [
            "MigrationKit", "MigrationKitSecrets",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // Keys and the wiped, locked memory that holds them. No C library: the key
        // sources build on it without SQLCipher.
        .target(name: "MigrationKitSecrets"),

        // SQLCipher through the system library (apt: libsqlcipher-dev).
        // Never libsqlite3: both export the same sqlite3_* symbols.
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        // Checksums from OpenSSL's libcrypto (apt: libssl-dev), the
        // library libsqlcipher already encrypts with: a well-kept hash that costs no
        // build of its own, where a Swift package would compile a TLS library for one hash.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "MigrationKitSQLCipher",
            dependencies: [
                "MigrationKit", "MigrationKitFiles", "MigrationKitSecrets", "CSQLCipher", "CLibCrypto",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // libsecret's headers (apt: libsecret-1-dev), for CLibSecretInterfaceCheck only:
        // any target depending on a pkg-config module gets the library linked.
        .systemLibrary(
            name: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // libsecret's functions, found with dlopen when the Secret Service is first used:
        // a command that never touches a keyring does not load GLib's stack. Its own
        // declarations of the interface, checked against CLibSecret's headers by
        // CLibSecretInterfaceCheck (a pkg-config module would link the library).
        .target(name: "CLibSecretLoader"),
        // prctl, setrlimit and posix_spawn's GNU actions with signatures Swift can call
        // (prctl is variadic; the others are declared under _GNU_SOURCE only).
        .target(name: "CProcessControl"),
        // Key sources: flags, key files, the environment, a no-echo prompt, the Secret
        // Service, a key command; and keeping keys out of core dumps and other processes.
        .target(name: "MigrationKitKeys", dependencies: [
            "MigrationKit", "MigrationKitSecrets", "CLibSecretLoader", "CProcessControl",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // The command layer: the one list of commands every database layer gets (migrate,
        // status, rollback, verify, schema-dump, diff, new, init, config, restore,
        // baseline, lint, check), over a `CommandLayer`; the key sources as options,
        // settings and sentences; project settings (flags, MIGRATIONKIT_*,
        // migrationkit.toml), backups, fleets, output and JSON documents, exit codes,
        // error sentences and the run around a command. No SQLite: SQLCipher's layer
        // (MigrationKitCLI) and GRDB's (MigrationKitGRDBCLI) stand on it, and the GRDB
        // package builds it too.
        .target(
            name: "MigrationKitCommands",
            dependencies: [
                "MigrationKit", "MigrationKitFiles", "MigrationKitSecrets", "MigrationKitKeys", "CProcessControl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),

        // `MigrationCLI` and `MigrationCLIHost`, which apps import this module for (hence
        // its name): the command layer over SQLCipher's connection, and the commands only
        // that connection has (encrypt, decrypt, rekey, cipher-upgrade, key), for the
        // `migrationkit` tool and for an app's own binary (MigrationCLI.run(host:arguments:)).
        .target(
            name: "MigrationKitCLI",
            dependencies: [
                "MigrationKit", "MigrationKitCommands", "MigrationKitSQLCipher", "MigrationKitKeys",
                "MigrationKitFiles", "MigrationKitSecrets",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(name: "migrationkit", dependencies: ["MigrationKitCLI"]),

        // MigrationKit's safety nets over any GRDB DatabaseWriter, and the commands over
        // an app's GRDB writer (GRDBMigrationCLI.run(host:arguments:)). GRDB links the
        // system libsqlite3, which must never share a process with libsqlcipher (both
        // export sqlite3_*): nothing here reaches SQLCipher, and no target of this
        // package's tests depends on these. Their tests, and the GRDBNotes example, are
        // the package in Integrations/GRDB, built from these same sources and run in a
        // process of their own.
        .target(name: "MigrationKitGRDB", dependencies: [
            // Keys, for a GRDB built on SQLCipher (Database.useKey); new files made as
            // the SQLCipher connection makes them (NewDatabaseFile).
            "MigrationKit", "MigrationKitSecrets", "MigrationKitFiles",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .target(name: "MigrationKitGRDBCLI", dependencies: [
            "MigrationKit", "MigrationKitCommands", "MigrationKitGRDB", "MigrationKitSecrets",
            "MigrationKitKeys", "MigrationKitFiles",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Examples: the library used directly, and an app embedding the commands.
        .executableTarget(
            name: "migrationkit-library-demo",
            dependencies: ["MigrationKit", "MigrationKitSQLCipher"],
            path: "Examples/LibraryDemo"
        ),
        .executableTarget(
            name: "notes-migrate",
            dependencies: ["MigrationKit", "MigrationKitSQLCipher", "MigrationKitCLI"],
            path: "Examples/NotesApp"
        ),

        // Shared by the test targets: temporary folders, child processes with a time limit.
        .target(name: "MigrationKitTestSupport", dependencies: ["CProcessControl"], path: "Tests/TestSupport"),

        .testTarget(name: "MigrationKitTests", dependencies: ["MigrationKit", "MigrationKitTestSupport"]),
        .testTarget(name: "MigrationKitCommandsTests", dependencies: [
            "MigrationKitCommands", "MigrationKit", "MigrationKitKeys", "MigrationKitTestSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "MigrationKitSecretsTests", dependencies: ["MigrationKitSecrets", "MigrationKitTestSupport"]),
        .testTarget(name: "MigrationKitFilesTests", dependencies: ["MigrationKitFiles", "MigrationKitTestSupport"]),
        .testTarget(
            name: "MigrationKitSQLCipherTests",
            dependencies: ["MigrationKitSQLCipher", "MigrationKit", "CSQLCipher", "MigrationKitTestSupport"],
            exclude: ["Fixtures"]),
        // The key sources build without SQLCipher; their tests open databases with the
        // keys they produce, so they link it.
        .testTarget(name: "MigrationKitKeysTests", dependencies: [
            "MigrationKitKeys", "MigrationKit", "MigrationKitSQLCipher", "KeyStoreProbe", "MigrationKitTestSupport",
            "CLibSecretInterfaceCheck",
        ]),
        // CLibSecretLoader's declarations against libsecret's headers, at compile time.
        .target(
            name: "CLibSecretInterfaceCheck",
            dependencies: ["CLibSecret", "CLibSecretLoader"],
            path: "Tests/LibSecretInterfaceCheck"),
        // The two CLI test targets' harness: the command tree run in the test process
        // (`Tool`, `Workspace.run`), the built binary run as a child (`Binary`, `Guarded`),
        // what a refusal must look like, and the helpers of suites split between them.
        .target(
            name: "MigrationKitCLITestSupport",
            dependencies: [
                "MigrationKitCLI", "MigrationKitCommands", "MigrationKitSQLCipher", "MigrationKitSecrets",
                "MigrationKitTestSupport",
            ],
            path: "Tests/CLITestSupport"),
        // The commands run in the test process (`Tool.run`), as an app embedding them runs
        // them; the command layer's own rules are checked on the types. Never the binary.
        .testTarget(name: "MigrationKitCLITests", dependencies: [
            "MigrationKitCLI", "MigrationKitCommands", "MigrationKit", "MigrationKitSQLCipher", "MigrationKitKeys", "MigrationKitFiles", "CSQLCipher",
            "MigrationKitTestSupport", "MigrationKitCLITestSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Runs the built binaries as a user would, for what only a process shows
        // (CONTRIBUTING.md's table): signals, terminals, descriptors, other processes,
        // hardening, users and the umask, traps, the process's own environment, linkage.
        .testTarget(name: "MigrationKitCLIProcessTests", dependencies: [
            "migrationkit", "notes-migrate", "KeyStoreProbe", "MigrationKit", "MigrationKitSQLCipher",
            "MigrationKitTestSupport", "MigrationKitCLITestSupport",
        ]),
        // A child process for the key tests: libsecret caches its bus connection per
        // process, and prompts need their own terminal, so those cases run out of process.
        .executableTarget(
            name: "KeyStoreProbe",
            dependencies: ["MigrationKitKeys", "MigrationKitSQLCipher"],
            path: "Tests/KeyStoreProbe"
        ),

        // Fuzzes the SQL text handling: a replay tool by default, a libFuzzer
        // target when built by scripts/fuzz.sh.
        .executableTarget(name: "MigrationKitFuzz", dependencies: ["MigrationKit"]),
    ],
    swiftLanguageModes: [.v6]
)
