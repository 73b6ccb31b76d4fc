import Foundation
import MigrationKitTestSupport
@testable import MigrationKitKeys
@testable import MigrationKitSQLCipher
import Testing

/// The prompt on a real pseudo-terminal (see `PseudoTerminal`).
@Suite(.enabled(if: Paths.python != nil || TestKeyring.isCI, "python3 is needed to drive a pseudo-terminal"))
struct PromptTests {
    let secret = "prompt-secret-Wq9"
    let prompt = "Database key: "

    func run(_ arguments: [String], _ steps: [PseudoTerminal.Step], home: String) throws -> PseudoTerminal.Result {
        try PseudoTerminal.run([Paths.probe] + arguments, environment: isolatedEnvironment(home: home, extra: ["TERM": "dumb"]), steps: steps)
    }

    @Test func theKeyIsReadWithoutEchoAndOpensTheDatabase() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("prompt.db")
        try createProbeDatabase(at: database, key: .passphrase(secret))
        let result = try run(["resolve", "prompt", "--database", database],
                             [.init(expect: prompt, send: secret + "\n")], home: directory.url.path)
        #expect(result.missing == nil && !result.timedOut)
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.transcript.contains("key passphrase"))
        #expect(result.transcript.contains("database value probe-value"))
        let echoed = result.transcript.contains(secret)
        #expect(!echoed, "the key was echoed to the terminal")
        #expect(result.echoAfter, "echo was not restored")
    }

    @Test func aConfirmedKeyMustBeTypedTwiceAlike() throws {
        let directory = try TemporaryDirectory()
        let same = try run(["resolve", "prompt", "--confirm"],
                           [.init(expect: prompt, send: secret + "\n"),
                            .init(expect: "again", send: secret + "\n")], home: directory.url.path)
        #expect(same.status == 0, "\(same.transcript)")
        #expect(same.transcript.contains("key passphrase"))
        #expect(!same.transcript.contains(secret))
        #expect(same.echoAfter)

        let different = try run(["resolve", "prompt", "--confirm"],
                                [.init(expect: prompt, send: secret + "\n"),
                                 .init(expect: "again", send: secret + "x\n")], home: directory.url.path)
        #expect(different.errorCode == "promptMismatch", "\(different.transcript)")
        #expect(!different.transcript.contains(secret))
        #expect(different.echoAfter, "echo was not restored after an error")
    }

    @Test func anEmptyLineOrEndOfInputIsRefused() throws {
        let directory = try TemporaryDirectory()
        let empty = try run(["resolve", "prompt"], [.init(expect: prompt, send: "\n")], home: directory.url.path)
        #expect(empty.errorCode == "promptEmpty", "\(empty.transcript)")
        #expect(empty.echoAfter)
        let endOfInput = try run(["resolve", "prompt"], [.init(expect: prompt, send: "\u{04}")], home: directory.url.path)
        #expect(endOfInput.errorCode == "promptCancelled", "\(endOfInput.transcript)")
        #expect(endOfInput.echoAfter)
    }

    @Test func ctrlCDuringThePromptStillRestoresEcho() throws {
        let directory = try TemporaryDirectory()
        let result = try run(["resolve", "prompt"], [.init(expect: prompt, send: "half-typed\u{03}")], home: directory.url.path)
        #expect(result.signal == SIGINT, "\(result.transcript)")
        #expect(result.echoAfter, "Ctrl-C left the terminal without echo")
        #expect(!result.transcript.contains("half-typed"))
    }

    @Test func ctrlZRestoresEchoWhileStoppedAndAsksAgainAfterwards() throws {
        let directory = try TemporaryDirectory()
        let result = try run(["resolve", "prompt"],
                             [.init(expect: prompt, send: "half\u{1A}", thenResumeFromStop: true),
                              .init(expect: prompt, send: secret + "\n")], home: directory.url.path)
        #expect(result.echoWhileStopped == [true], "the terminal did not echo while the probe was stopped")
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.transcript.contains("key passphrase"))
        #expect(!result.transcript.contains(secret) && !result.transcript.contains("half"))
        #expect(result.echoAfter)
    }

    @Test func standardInputOnATerminalIsRefusedRatherThanEchoed() throws {
        let directory = try TemporaryDirectory()
        let result = try run(["resolve", "stdin"], [], home: directory.url.path)
        #expect(result.errorCode == "standardInputIsTerminal", "\(result.transcript)")
        #expect(result.transcript.contains("pipe the key in, or prompt for it on the terminal"))
    }

    @Test func withoutAFlagOrVariableATerminalGetsThePrompt() throws {
        let directory = try TemporaryDirectory()
        let result = try run(["resolve", "implicit"], [.init(expect: prompt, send: secret + "\n")], home: directory.url.path)
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.transcript.contains("key passphrase"))
        #expect(!result.transcript.contains(secret))
    }
}
