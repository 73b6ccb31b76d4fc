// A child process for MigrationKitKeysTests, for what cannot run inside the test process:
// libsecret caches its bus connection per process (so "no bus" and "no provider" need a
// fresh process), and prompts and standard input need their own terminal or pipe.
//
//   KeyStoreProbe resolve SOURCE [--database PATH [--create]]
//   KeyStoreProbe store SERVICE ACCOUNT SOURCE
//   KeyStoreProbe delete SERVICE ACCOUNT
//   KeyStoreProbe lookups COUNT SERVICE ACCOUNT SECONDS [--batch]
//   KeyStoreProbe env-string VARIABLE
//
// SOURCE: password TEXT | file PATH | env VARIABLE | stdin | prompt [--confirm]
//         | keychain SERVICE ACCOUNT | implicit | hex SOURCE
//
// Standard output gets one line per fact, for the tests to match: `warning CODE`,
// `key KIND`, `database created|opened|value VALUE`, `stored`, `deleted true|false`,
// `string given|nil` (whether ProcessEnvironment.process.string gave a value), `error CODE`;
// `lookups` (COUNT lookups by stores waiting SECONDS each, on their own or in one
// `SecretServiceKeyStore.Batch`) one `lookup N: key|error CODE after MS ms` line each.
// Standard error gets the human messages. Never the key itself.
import Foundation
import MigrationKitKeys
import MigrationKitSQLCipher

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

func usage() -> Never {
    complain("usage: KeyStoreProbe resolve SOURCE [--database PATH [--create]] | store SERVICE ACCOUNT SOURCE | delete SERVICE ACCOUNT")
    exit(2)
}

/// Parses a SOURCE from the front of `arguments`, removing what it used.
func parseSource(_ arguments: inout ArraySlice<String>) -> KeySource {
    guard let kind = arguments.popFirst() else { usage() }
    switch kind {
    case "password":
        guard let text = arguments.popFirst() else { usage() }
        return .password(text)
    case "file":
        guard let path = arguments.popFirst() else { usage() }
        return .file(path: path)
    case "env":
        guard let variable = arguments.popFirst() else { usage() }
        return .environment(variable: variable)
    case "stdin":
        return .standardInput
    case "prompt":
        let confirm = arguments.first == "--confirm"
        if confirm { arguments.removeFirst() }
        return .prompt(message: "Database key: ", confirm: confirm)
    case "keychain":
        guard let service = arguments.popFirst(), let account = arguments.popFirst() else { usage() }
        return .secretService(service: service, account: account)
    case "implicit":
        return KeySource.implicit(promptMessage: "Database key: ")
    case "hex":
        return .hex(parseSource(&arguments))
    default:
        usage()
    }
}

func resolve(_ source: KeySource) throws -> DatabaseKey {
    let key = try source.resolve { warning in
        say("warning \(warning.code)")
        complain("warning: \(warning.message)")
    }
    say("key \(key.kind.rawValue)")
    return key
}

func run() throws {
    var arguments = CommandLine.arguments.dropFirst()
    guard let command = arguments.popFirst() else { usage() }
    switch command {
    case "resolve":
        let key = try resolve(parseSource(&arguments))
        guard arguments.popFirst() == "--database" else { return }
        guard let path = arguments.popFirst() else { usage() }
        if arguments.first == "--create" {
            let writer = try SQLCipherWriter(path: path, key: key)
            try writer.write { db in
                try db.execute(sql: "CREATE TABLE probe (value TEXT); INSERT INTO probe VALUES ('probe-value')")
            }
            say("database created")
        } else {
            var configuration = SQLCipherConfiguration()
            configuration.createIfMissing = false
            let writer = try SQLCipherWriter(path: path, key: key, configuration: configuration)
            let value = try writer.read { try $0.fetchString(sql: "SELECT value FROM probe") }
            say("database opened")
            say("database value \(value ?? "NULL")")
        }
    case "store":
        guard let service = arguments.popFirst(), let account = arguments.popFirst() else { usage() }
        let key = try resolve(parseSource(&arguments))
        try SecretServiceKeyStore().store(service: service, account: account, key: key)
        say("stored")
    case "delete":
        guard let service = arguments.popFirst(), let account = arguments.popFirst() else { usage() }
        say("deleted \(try SecretServiceKeyStore().delete(service: service, account: account))")
    case "lookups":
        guard let count = arguments.popFirst().flatMap({ Int($0) }), let service = arguments.popFirst(), let account = arguments.popFirst(),
              let seconds = arguments.popFirst().flatMap({ Int64($0) })
        else { usage() }
        let batch = arguments.first == "--batch" ? SecretServiceKeyStore.Batch(timeout: .seconds(seconds)) : nil
        for index in 1...max(count, 1) {
            let store = batch.map { SecretServiceKeyStore(batch: $0) } ?? SecretServiceKeyStore(timeout: .seconds(seconds))
            let started = ContinuousClock.now
            var outcome = "key"
            do {
                _ = try store.lookup(service: service, account: account)
            } catch let error as KeyError {
                outcome = "error \(error.code)"
                complain("lookup \(index): \(error)")
            }
            let elapsed = ContinuousClock.now - started
            say("lookup \(index): \(outcome) after \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000) ms")
        }
    case "env-string":
        guard let variable = arguments.popFirst() else { usage() }
        say("string \(ProcessEnvironment.process.string(variable) == nil ? "nil" : "given")")
    default:
        usage()
    }
}

do {
    try run()
} catch let error as KeyError {
    say("error \(error.code)")
    complain("error: \(error)")
    exit(1)
} catch let error as SQLCipherError {
    say("error sqlcipher.\(error.kind)")
    complain("error: \(error)")
    exit(1)
} catch {
    say("error other")
    complain("error: \(error)")
    exit(1)
}
