import Foundation

/// How much of the long tests a run does, from `MIGRATIONKIT_TEST_DEPTH`: `make test` (and
/// CI) run everything, `make check` a quick share of what takes minutes — fewer kills in
/// the crash tests, fewer rounds of the races, fewer fuzz cases — so the inner loop
/// answers in a few minutes while every behaviour is still exercised at least once.
/// Unset is `full`: a bare `swift test` runs what CI runs.
public enum TestDepth: String, Sendable {
    case quick, full

    public static let current: TestDepth =
        ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_DEPTH"].flatMap(TestDepth.init(rawValue:)) ?? .full

    /// `full` in a full run, `quick` in a quick one.
    public static func count(quick: Int, full: Int) -> Int {
        current == .quick ? quick : full
    }
}
