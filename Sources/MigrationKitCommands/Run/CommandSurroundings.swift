import CProcessControl
import Foundation
import Glibc
import MigrationKitFiles
import MigrationKitKeys
import SystemPackage

#if canImport(Glibc)
#endif

/// What a command line sees of its process — environment, standard input, standard
/// output and error, working folder — given to a command run inside a process that is
/// not its own: a test that runs hundreds of command lines at once, each with its own,
/// where a process has one of each.
///
/// `MigrationCLI.run(host:arguments:in:)` runs a `migrationkit` command in them. What a command reads
/// of its process it takes from its world, which holds these as its `ProcessSurroundings`
/// (`process`); the working folder is the command's thread's own, as Linux can give a
/// thread (`unshare(CLONE_FS)`), so every relative path and every search for
/// `migrationkit.toml` starts there, and none from the process's folder.
/// Signals, the user, resource limits and the libraries' own output (GLib's, SQLCipher's
/// logger) are the process's still: a test about those runs the binary.
package struct CommandSurroundings: Sendable {
    /// Every variable the command sees; nothing of the process's environment.
    package var environment: [String: String]
    /// The descriptor the command reads as its standard input.
    package var standardInput: Int32
    /// Where its standard output and error go.
    package var console: ConsoleCapture
    /// Its working folder.
    var workingDirectory: String

    init(environment: [String: String], standardInput: Int32, console: ConsoleCapture, workingDirectory: String) {
        self.environment = environment
        self.standardInput = standardInput
        self.console = console
        self.workingDirectory = workingDirectory
    }

    /// Runs `body` on a thread of its own whose working folder is `workingDirectory`
    /// (threads it starts share it), and waits for it; `body` runs its command line in
    /// `processSurroundings`.
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) throws -> T {
        let result = Result<T, any Error>.Box()
        let thread = Thread { [self] in
            guard migrationkit_unshare_filesystem() == 0 else {
                result.set(.failure(CLIError(.unexpectedState, "unshare(CLONE_FS) failed: \(Errno(rawValue: errno))")))
                return
            }
            guard chdir(workingDirectory) == 0 else {
                result.set(.failure(CLIError(.unexpectedState, "cannot enter \(workingDirectory): \(Errno(rawValue: errno))")))
                return
            }
            result.set(.success(body()))
        }
        // SQLite and deep SQL need more than a secondary thread's default stack.
        thread.stackSize = 8 << 20
        thread.start()
        return try result.wait().get()
    }

    /// What the command line that runs in these surroundings sees of its process: these
    /// variables, this standard input, this capture (`CommandTree.run`'s `surroundings`).
    package var processSurroundings: ProcessSurroundings {
        ProcessSurroundings(environment: ProcessEnvironment(environment), standardInput: StandardInput(descriptor: standardInput),
                            console: Console(capture: console))
    }
}

private extension Result {
    /// A result handed from the command's thread to the caller waiting for it.
    final class Box: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var value: Result?

        func set(_ value: Result) {
            self.value = value
            done.signal()
        }

        func wait() -> Result {
            done.wait()
            return value!
        }
    }
}
