import Foundation
@testable import MigrationKit
import MigrationKitTestSupport
@testable import MigrationKitKeys
@testable import MigrationKitSQLCipher
import Testing

/// The password literal in-process; the environment and standard input in a child
/// process (the probe), since changing this process's environment or standard input
/// would race with tests running in parallel.
@Suite struct KeySourceTests {
    let secret = "source-secret-Zk4 ünïcode"

    @Test func aPasswordIsAPassphraseOrARawKeyByItsText() throws {
        #expect(try KeySource.password(secret).resolve().isSameKey(as: .passphrase(secret)))
        let bytes = Array(repeating: UInt8(0x5a), count: 32)
        #expect(try KeySource.password(rawKeyText(bytes)).resolve().isSameKey(as: .rawKey(bytes)))
        let error = expectKeyError(.passwordEmpty) { _ = try KeySource.password("").resolve() }
        // The remedy is the command line's to word (`--plaintext`); the library says it plainly.
        #expect(error?.remedy == .openWithoutKey && error?.message.contains("open it without a key") == true)
    }

    @Test func sourcesNeverPrintTheirSecret() {
        let source = KeySource.password(secret)
        #expect(!"\(source)".contains(secret))
        #expect(!String(reflecting: source).contains(secret))
        var dumped = ""
        dump(source, to: &dumped)
        #expect(!dumped.contains(secret))
        #expect("\(KeySource.secretService(service: "S", account: "A"))".contains("service S, account A"))
    }

    @Test func theEnvironmentVariableIsTakenAsIs() throws {
        let directory = try TemporaryDirectory()
        let result = try runProbe(["resolve", "env", "MK_TEST_KEY"],
                                  environment: isolatedEnvironment(home: directory.url.path, extra: ["MK_TEST_KEY": secret]))
        #expect(result.lines == ["key passphrase"], "\(result.stderr)")
        #expect(!result.mentions(secret))

        let raw = try runProbe(["resolve", "env", "MK_TEST_KEY"],
                               environment: isolatedEnvironment(home: directory.url.path, extra: ["MK_TEST_KEY": rawKeyText(Array(repeating: 1, count: 32))]))
        #expect(raw.lines == ["key rawKey"], "\(raw.stderr)")
    }

    @Test func anUnsetOrEmptyVariableIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        let unset = try runProbe(["resolve", "env", "MK_TEST_KEY"], environment: isolatedEnvironment(home: directory.url.path))
        #expect(unset.errorCode == "environmentVariableUnset")
        #expect(unset.stderr.contains("MK_TEST_KEY"))
        let empty = try runProbe(["resolve", "env", "MK_TEST_KEY"],
                                 environment: isolatedEnvironment(home: directory.url.path, extra: ["MK_TEST_KEY": ""]))
        #expect(empty.errorCode == "environmentVariableEmpty")
        #expect(empty.stderr.contains("MK_TEST_KEY"))
    }

    @Test func standardInputIsReadToItsEndMinusOneNewline() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("stdin.db")
        try createProbeDatabase(at: database, key: .passphrase(secret))
        for input in [secret, secret + "\n", secret + "\r\n"] {
            let result = try runProbe(["resolve", "stdin", "--database", database], stdin: Data(input.utf8),
                                      environment: isolatedEnvironment(home: directory.url.path))
            #expect(result.lines == ["key passphrase", "database opened", "database value probe-value"], "\(result.stderr)")
            #expect(!result.mentions(secret))
        }
        let raw = try runProbe(["resolve", "stdin"], stdin: Data((rawKeyText(Array(repeating: 9, count: 32)) + "\n").utf8),
                               environment: isolatedEnvironment(home: directory.url.path))
        #expect(raw.lines == ["key rawKey"])
    }

    @Test func emptyOrOversizedStandardInputIsRefused() throws {
        let directory = try TemporaryDirectory()
        let environment = isolatedEnvironment(home: directory.url.path)
        for input in ["", "\n"] {
            let result = try runProbe(["resolve", "stdin"], stdin: Data(input.utf8), environment: environment)
            #expect(result.errorCode == "standardInputEmpty")
        }
        // Far more than the limit: refused after reading 4097 bytes, not after all of it.
        let big = try runProbe(["resolve", "stdin"], stdin: Data(repeating: UInt8(ascii: "k"), count: 1_000_000), environment: environment)
        #expect(big.errorCode == "standardInputTooLarge")
        let exact = try runProbe(["resolve", "stdin"], stdin: Data(repeating: UInt8(ascii: "k"), count: 4096), environment: environment)
        #expect(exact.lines == ["key passphrase"])
    }

    @Test func aPromptWithoutATerminalSaysWhatToUseInstead() throws {
        let directory = try TemporaryDirectory()
        let result = try runProbe(["resolve", "prompt"], stdin: Data("typed\n".utf8), environment: isolatedEnvironment(home: directory.url.path))
        #expect(result.errorCode == "notATerminal")
        // In the library's words; the tool names its flags (RemedyWordingTests).
        for alternative in ["a key file", "the environment", "the Secret Service"] {
            #expect(result.stderr.contains(alternative))
        }
    }

    @Test func withoutAFlagTheVariableComesBeforeThePrompt() throws {
        let directory = try TemporaryDirectory()
        let set = try runProbe(["resolve", "implicit"],
                               environment: isolatedEnvironment(home: directory.url.path, extra: ["MIGRATIONKIT_PASSWORD": secret]))
        #expect(set.lines == ["key passphrase"])
        #expect(!set.mentions(secret))
        // Set but empty counts as not set, as every MIGRATIONKIT_* variable does: the
        // prompt comes next, which without a terminal is refused.
        let empty = try runProbe(["resolve", "implicit"], stdin: Data(),
                                 environment: isolatedEnvironment(home: directory.url.path, extra: ["MIGRATIONKIT_PASSWORD": ""]))
        #expect(empty.errorCode == "notATerminal")
        let unset = try runProbe(["resolve", "implicit"], stdin: Data(), environment: isolatedEnvironment(home: directory.url.path))
        #expect(unset.errorCode == "notATerminal")
    }

    @Test func thePasswordVariableIsNeverCopiedIntoAString() throws {
        let directory = try TemporaryDirectory()
        let environment = isolatedEnvironment(home: directory.url.path, extra: ["MIGRATIONKIT_PASSWORD": secret, "MIGRATIONKIT_DB_PATH": "app.db"])
        let password = try runProbe(["env-string", "MIGRATIONKIT_PASSWORD"], environment: environment)
        #expect(password.lines == ["string nil"])
        #expect(!password.mentions(secret))
        // Another variable still reads: the refusal is the password variable's alone.
        #expect(try runProbe(["env-string", "MIGRATIONKIT_DB_PATH"], environment: environment).lines == ["string given"])
    }

    @Test func errorCodesMatchInCatchClauses() {
        do {
            _ = try KeySource.password("").resolve()
        } catch KeyError.Code.passwordEmpty {
            return
        } catch {
            Issue.record("did not match: \(error)")
        }
        Issue.record("nothing was thrown")
    }
}
