// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MigrationKit",
    products: [
        .library(name: "MigrationKit", targets: ["MigrationKit"]),
        .library(name: "MigrationKitSQLCipher", targets: ["MigrationKitSQLCipher"]),
    ],
    dependencies: [
        // SHA-256 checksums of migration files (BoringSSL inside, symbol-prefixed, so it
        // cannot clash with the OpenSSL that libsqlcipher links).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
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
        .target(
            name: "MigrationKitSQLCipher",
            dependencies: ["MigrationKit", "CSQLCipher", .product(name: "Crypto", package: "swift-crypto")]),

        .executableTarget(
            name: "migrationkit-library-demo",
            dependencies: ["MigrationKitSQLCipher"],
            path: "Examples/LibraryDemo"
        ),

        .testTarget(name: "MigrationKitTests", dependencies: ["MigrationKit"]),
        .testTarget(
            name: "MigrationKitSQLCipherTests",
            dependencies: ["MigrationKitSQLCipher"],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
