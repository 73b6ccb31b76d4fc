import ArgumentParser
@testable import MigrationKit
@testable import MigrationKitCommands
@testable import MigrationKitKeys
import Testing

/// The one list of key sources, on its types: what every command line that takes the key
/// options (`migrationkit`, an app on `MigrationCLI`, a GRDB app's commands on SQLCipher)
/// parses, refuses and says. The binaries' behaviour is tested through them
/// (`KeyOptionsTests`, `EncryptedExampleAppTests`).
@Suite struct KeySourceListTests {
    struct Command: ParsableCommand {
        @OptionGroup var key: KeyOptions
    }

    func parse(_ arguments: [String]) throws -> KeyOptions {
        try Command.parse(arguments).key
    }

    @Test func theListHoldsEachSourceOnceInHelpOrder() {
        let names = KeySources.all.flatMap { $0.parameters.map(\.name) }
        #expect(names == ["password", "password-hex", "password-file", "password-hex-file", "keychain-service", "keychain-account", "systemd-credential", "password-command"])
        #expect(Set(names).count == names.count)
        // A key itself is never a setting: only --password and --password-hex have none,
        // and they are the last resorts.
        #expect(KeySources.all.filter { $0.settings.isEmpty }.map { $0.parameters[0].name } == ["password", "password-hex"])
        #expect(KeySources.all.filter(\.lastResort).map { $0.parameters[0].name } == ["password", "password-hex"])
    }

    @Test func eachSourceBecomesItsKeySource() throws {
        if case .file(let path)? = try parse(["--password-file", "/etc/app/db.key"]).given.source(in: .process) {
            #expect(path == "/etc/app/db.key")
        } else {
            Issue.record("--password-file is not a key file")
        }
        if case .command(let line)? = try parse(["--password-command", "pass show db"]).given.source(in: .process) {
            #expect(line == "pass show db")
        } else {
            Issue.record("--password-command is not a key command")
        }
        if case .standardInput? = try parse(["--password-file", "-"]).given.source(in: .process) {} else {
            Issue.record("--password-file - does not read standard input")
        }
        // The hex forms are chosen by name and read their text as hex; --password-file never is.
        if case .hex(.file(let path))? = try parse(["--password-hex-file", "/etc/app/db.hexkey"]).given.source(in: .process) {
            #expect(path == "/etc/app/db.hexkey")
        } else {
            Issue.record("--password-hex-file is not a hex key file")
        }
        if case .hex(.standardInput)? = try parse(["--password-hex-file", "-"]).given.source(in: .process) {} else {
            Issue.record("--password-hex-file - does not read hex from standard input")
        }
        #expect(try parse(["--password-hex-file", "-"]).given.readsStandardInput)
        if case .hex(.password(let digits))? = try parse(["--password-hex", "0a0d"]).given.source(in: .process) {
            #expect(digits == "0a0d")
        } else {
            Issue.record("--password-hex is not a key in hex")
        }
        if case .secretService(let service, let account)? = try parse(["--keychain-service", "app", "--keychain-account", "db"]).given.source(in: .process) {
            #expect(service == "app" && account == "db")
        } else {
            Issue.record("--keychain-service/--keychain-account is not a Secret Service item")
        }
        #expect(try parse([]).given.source(in: .process) == nil)
        #expect(try parse(["--plaintext"]).plaintext)
    }

    @Test func twoSourcesHalfASourceOrAKeyWithPlaintextAreUsageErrors() {
        #expect(throws: (any Error).self) { try parse(["--password-file", "k", "--password", "x"]) }
        #expect(throws: (any Error).self) { try parse(["--keychain-service", "app"]) }
        #expect(throws: (any Error).self) { try parse(["--plaintext", "--password-file", "k"]) }
        #expect(throws: (any Error).self) { try parse(["--password", ""]) }
        #expect(throws: (any Error).self) { try parse(["--password-hex", ""]) }
        #expect(throws: (any Error).self) { try parse(["--password-hex", "00", "--password-hex-file", "k"]) }
        #expect(throws: (any Error).self) { try parse(["--systemd-credential", "../key"]) }
        do {
            _ = try parse(["--password-file", "k", "--keychain-service", "a", "--keychain-account", "b"])
            Issue.record("two key sources were accepted")
        } catch {
            #expect(Command.message(for: error).contains("Give exactly one key source: --password, --password-hex, --password-file, --password-hex-file, --keychain-service with --keychain-account, --systemd-credential, or --password-command."), "\(Command.message(for: error))")
        }
    }

    /// A settings file never holds a key: in a role that writes one, `--password` is
    /// refused with the file's name.
    @Test func aRoleThatWritesASettingsFileRefusesTheKeyItself() {
        let role = KeyRoleText(prefix: "", theKey: "the key", environmentVariable: nil, settingsFile: "app.toml")
        #expect(!role.takesFlagOnlySources)
        #expect(throws: (any Error).self) { try KeySourceValues(byName: ["password": "secret"]).validate(role) }
        do {
            try KeySourceValues(byName: ["password": "secret"]).validate(role)
        } catch {
            #expect("\(error)".contains("cannot be written to app.toml") && !"\(error)".contains("secret"), "\(error)")
        }
        #expect(throws: Never.self) { try KeySourceValues(byName: ["password-file": "k"]).validate(role) }
        #expect(throws: (any Error).self) { try KeySourceValues(byName: ["password-hex": "00"]).validate(role) }
        #expect(throws: Never.self) { try KeySourceValues(byName: ["password-hex-file": "k"]).validate(role) }
    }

    /// Every key remedy the libraries offer has its words here, and no other remedy does:
    /// both command lines word them from this one place.
    @Test func everyKeyRemedyIsWordedHereAndOnlyThose() {
        let keyRemedies: [Remedy] = [.openWithoutKey, .keyFromFile, .keyFromAnotherSource, .keyFromPipeOrPrompt, .allowKeyCommandMoreTime]
        for remedy in keyRemedies {
            #expect(KeySources.words(for: remedy, commandName: "app") != nil, "\(remedy)")
        }
        #expect(KeySources.words(for: .keyFromPipeOrPrompt, commandName: "app")?.contains("`app … --password-file - < key`") == true)
        for remedy: Remedy in [.allowOutOfOrder, .createMigrationsFolder, .chooseMigrationsFolder, .encryptInPlace, .replaceOutput, .acceptModified(["a"])] {
            #expect(KeySources.words(for: remedy, commandName: "app") == nil, "\(remedy)")
        }
    }
}
