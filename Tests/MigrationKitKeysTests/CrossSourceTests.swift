import Foundation
import MigrationKitTestSupport
@testable import MigrationKitKeys
@testable import MigrationKitSQLCipher
import Testing

/// The same secret, whichever way it arrives, is the same key: a database created with a
/// key from one source opens with the key from every other source. Each source is checked
/// both ways against the secret taken as is (`.passphrase(secret)`): what it creates opens
/// with that key, and what that key created opens with it. Keys that open the same file
/// are the same key, so every pair of sources agrees without opening n² files, each open
/// a key derivation.
@Suite(.tags(.passphrase)) struct CrossSourceTests {
    /// A way to deliver the secret, and to create or open the probe database with it.
    enum Source: String, CaseIterable, CustomTestStringConvertible {
        case password, file, environment, standardInput, prompt, keychain, command

        var testDescription: String { rawValue }

        var needsKeyring: Bool { self == .keychain }
    }

    /// Creates (`create`) or opens the database at `database` with the secret from
    /// `source`, returning whether it worked.
    static func use(_ source: Source, secret: String, database: String, create: Bool, in directory: TemporaryDirectory, keychainService: String) throws -> Bool {
        let tail = ["--database", database] + (create ? ["--create"] : [])
        let environment = isolatedEnvironment(home: directory.url.path)
        let succeeded: Bool
        switch source {
        case .password:
            let key = try KeySource.password(secret).resolve()
            succeeded = try create ? { try createProbeDatabase(at: database, key: key); return true }() : databaseOpens(at: database, with: key)
        case .file:
            let path = try directory.write("key-\(UUID().uuidString)", secret + "\n")
            let key = try KeySource.file(path: path).resolve()
            succeeded = try create ? { try createProbeDatabase(at: database, key: key); return true }() : databaseOpens(at: database, with: key)
        case .command:
            // What a key command prints is read as a key file's content is.
            let path = try directory.write("printed-\(UUID().uuidString)", secret + "\n")
            let key = try KeySource.command("cat '\(path)'").resolve()
            succeeded = try create ? { try createProbeDatabase(at: database, key: key); return true }() : databaseOpens(at: database, with: key)
        case .keychain:
            // checkMatrix stored the secret under keychainService beforehand.
            let key = try KeySource.secretService(service: keychainService, account: "cross").resolve()
            succeeded = try create ? { try createProbeDatabase(at: database, key: key); return true }() : databaseOpens(at: database, with: key)
        case .environment:
            var withKey = environment
            withKey["MK_CROSS_KEY"] = secret
            let result = try runProbe(["resolve", "env", "MK_CROSS_KEY"] + tail, environment: withKey)
            #expect(!result.mentions(secret))
            succeeded = result.lines.contains(create ? "database created" : "database value probe-value")
        case .standardInput:
            let result = try runProbe(["resolve", "stdin"] + tail, stdin: Data((secret + "\n").utf8), environment: environment)
            #expect(!result.mentions(secret))
            succeeded = result.lines.contains(create ? "database created" : "database value probe-value")
        case .prompt:
            let result = try PseudoTerminal.run([Paths.probe, "resolve", "prompt"] + tail, environment: environment,
                                                steps: [.init(expect: "Database key: ", send: secret + "\n")])
            #expect(!result.transcript.contains(secret))
            succeeded = result.transcript.contains(create ? "database created" : "database value probe-value")
        }
        return succeeded
    }

    func checkMatrix(sources: [Source], secret: String) throws {
        let directory = try TemporaryDirectory()
        let keychainService = TestKeyring.uniqueService("cross")
        if sources.contains(.keychain) {
            // Stored the way `secret-tool store` would, so the keychain source is a
            // separate way in, not the test's own DatabaseKey handed back.
            try TestKeyring.secretToolStore(secret: secret, attributes: ["service", keychainService, "account", "cross"])
        }
        defer {
            if sources.contains(.keychain) { _ = try? SecretServiceKeyStore().delete(service: keychainService, account: "cross") }
        }
        // Made with the secret as is: every source must open it.
        let reference = directory.path("reference.db")
        try createProbeDatabase(at: reference, key: .passphrase(secret))
        #expect(!databaseOpens(at: reference, with: .passphrase(secret + " ")), "the probe opens with another key: it proves nothing")
        for source in sources {
            let database = directory.path("\(source.rawValue).db")
            let created = try Self.use(source, secret: secret, database: database, create: true, in: directory, keychainService: keychainService)
            #expect(created, "creating with \(source.rawValue) failed")
            if created {
                #expect(databaseOpens(at: database, with: .passphrase(secret)), "\(source.rawValue) did not use the secret as is")
            }
            let opened = try Self.use(source, secret: secret, database: reference, create: false, in: directory, keychainService: keychainService)
            #expect(opened, "a database created with the secret as is did not open with the \(source.rawValue) key")
        }
    }

    @Test(.enabled(if: Paths.python != nil || TestKeyring.isCI, "python3 is needed to drive a pseudo-terminal"))
    func everySourceWithoutTheKeyringOpensWhatEveryOtherCreated() throws {
        try checkMatrix(sources: Source.allCases.filter { !$0.needsKeyring }, secret: "cross-secret-Tt5 é")
    }

    @Test(TestKeyring.trait, .enabled(if: Paths.python != nil || TestKeyring.isCI, "python3 is needed to drive a pseudo-terminal"))
    func theKeychainOpensWhatEveryOtherSourceCreatedAndTheReverse() throws {
        guard TestKeyring.require() else { return }
        try checkMatrix(sources: Source.allCases, secret: "cross-keychain-secret-Jr8")
    }

    @Test func aRawKeyFileOpensWhatTheSameKeyTextCreated() throws {
        let directory = try TemporaryDirectory()
        let bytes = (0..<32).map { UInt8($0 * 5 + 1) }
        let database = directory.path("raw.db")
        try createProbeDatabase(at: database, key: .rawKey(bytes))
        let path = try directory.write("raw.key", rawKeyText(bytes) + "\n")
        #expect(databaseOpens(at: database, with: try KeySource.file(path: path).resolve()))
        #expect(databaseOpens(at: database, with: try KeySource.password(rawKeyText(bytes)).resolve()))
        let result = try runProbe(["resolve", "stdin", "--database", database], stdin: Data(rawKeyText(bytes).utf8),
                                  environment: isolatedEnvironment(home: directory.url.path))
        #expect(result.lines == ["key rawKey", "database opened", "database value probe-value"])
        // Without the x'…' around them, the same hex digits are a passphrase: another key.
        let hexOnly = String(rawKeyText(bytes).dropFirst(2).dropLast())
        #expect(!databaseOpens(at: database, with: try KeySource.password(hexOnly).resolve()))
    }
}

@Suite struct LinkageTests {
    /// libsecret pulls in GLib; nothing may pull in libsqlite3, whose sqlite3_* symbols
    /// would clash with SQLCipher's. The key store's binaries link SQLCipher and not
    /// libsecret, which is loaded (with its dependencies) when a keyring is first used:
    /// so libsecret's own dependencies are checked too.
    @Test func nothingLinksLibsqlite3() throws {
        guard let ldd = Paths.program("ldd") else {
            Issue.record("ldd is missing")
            return
        }
        let probe = try runProgram(ldd, [Paths.probe])
        #expect(probe.status == 0, "\(probe.stderr)")
        #expect(probe.stdout.contains("libsqlcipher"), "\(Paths.probe) does not link SQLCipher")
        #expect(!probe.stdout.contains("libsecret-1"), "\(Paths.probe) links libsecret instead of loading it")
        #expect(!probe.stdout.contains("libsqlite3"), "\(Paths.probe) links libsqlite3")

        // The file the dynamic loader chooses for libsecret's soname, as the key store's
        // loader asks for it (only loading it: no bus connection is made).
        #expect(dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL) != nil, "libsecret-1.so.0 cannot be loaded")
        // (Read to its end: procfs reports a size of 0, which a sized read believes.)
        let maps = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile(), as: UTF8.self)
        let library = try #require(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }.first { $0.contains("/libsecret-1.so.0") })
        let dependencies = try runProgram(ldd, [library])
        #expect(dependencies.status == 0, "\(dependencies.stderr)")
        #expect(dependencies.stdout.contains("libglib-2.0"), "read no dependencies of \(library)")
        #expect(!dependencies.stdout.contains("libsqlite3"), "\(library) brings libsqlite3")
    }
}
