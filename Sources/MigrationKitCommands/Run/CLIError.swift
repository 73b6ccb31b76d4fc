/// A failure the CLI itself detects (a missing option, a refused overwrite), with the
/// exit code it maps to and one sentence that says what to do.
package struct CLIError: Error, CustomStringConvertible {
    package let exitCode: CLIExitCode
    package let message: String

    package init(_ exitCode: CLIExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    package var description: String { message }
}
