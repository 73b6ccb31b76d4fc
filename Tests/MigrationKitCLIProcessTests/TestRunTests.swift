import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the test run itself promises (CONTRIBUTING.md, "Time"): a child the tests start
/// holds no descriptor of the test process but its three standard streams, so hundreds
/// started at once never keep one another's input open; and a run that stops making
/// progress fails, naming what still ran, instead of waiting for the CI's time limit.
@Suite struct TestRunTests {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A descriptor this process opened without close-on-exec (as Foundation's `Pipe`
    /// does) does not reach a child started after it; nor does a pipe of another child.
    @Test func aChildHoldsOnlyItsOwnStandardStreams() throws {
        var stray: [Int32] = [-1, -1]
        try #require(pipe(&stray) == 0)
        defer { stray.forEach { close($0) } }
        let other = try ChildProcess(["/bin/cat"], input: .pipe, output: .pipe)
        defer { try? other.input?.close(); other.waitUntilExit(timeout: 10) }
        // The shell lists its own descriptors once it runs its script (while it starts,
        // the loader holds its libraries open).
        let listed = try ChildProcess.run(["/bin/sh", "-c", "ls /proc/$$/fd"], timeout: 30)
        #expect(listed.status == 0 && listed.stdout.split(separator: "\n") == ["0", "1", "2"], "\(listed)")
        // The other child sees the end of its input once this process closes its end.
        try other.input?.close()
        #expect(other.wait(timeout: 10), "cat never saw the end of its input")
    }

    /// A log that stops growing while a test process runs: the watchdog appends the
    /// tests that started and never ended, kills the process and ends with the run.
    @Test func aStalledRunIsKilledAndTheTestsStillRunningAreNamed() throws {
        let folder = try TemporaryDirectory()
        let log = folder.url.appendingPathComponent("sqlcipher4.log").path
        try """
            ◇ Suite StalledSuite started.
            ◇ Test finishes() started.
            ◇ Test waitsForever(mode:) started.
            ◇ Test case passing 1 argument mode → "a" to waitsForever(mode:) started.
            ✔ Test finishes() passed after 0.100 seconds.

            """.write(toFile: log, atomically: false, encoding: .utf8)
        // A stand-in for the test bundle: `sleep` under a name ending in .xctest, below a
        // shell that stands for `swift test`.
        let bundle = folder.url.appendingPathComponent("StandIn.xctest").path
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: bundle)
        let run = try ChildProcess(["/bin/sh", "-c", "\"$0\" 600; echo ended", bundle], output: .pipe)
        defer { run.send(SIGKILL); run.waitUntilExit(timeout: 10) }
        let started = ContinuousClock.now
        let watchdog = try ChildProcess.run(["/usr/bin/python3", Self.repository + "/scripts/stall-watchdog.py", log,
                                             "\(run.processIdentifier)", "2"], timeout: 60)
        #expect(watchdog.status == 0 && !watchdog.timedOut, "\(watchdog)")
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(try run.output!.read(until: "ended", timeout: 10), "the stand-in test process was not killed")
        let written = try String(contentsOfFile: log, encoding: .utf8)
        #expect(written.contains("✘ Stalled: no test output for 2 s; the test processes ["), "\(written)")
        #expect(written.contains(" are killed. Still running: waitsForever(mode:)\n"), "\(written)")
    }
}
