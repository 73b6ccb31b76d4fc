/// A failure the CLI itself detects (a missing option, a refused overwrite), with the
/// exit code it maps to and one sentence that says what to do.
public struct CLIError: Error, CustomStringConvertible {
    public let exitCode: CLIExitCode
    public let message: String

    public init(_ exitCode: CLIExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    public var description: String { message }
}
