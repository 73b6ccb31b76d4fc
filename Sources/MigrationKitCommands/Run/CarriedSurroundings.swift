import MigrationKitFiles
import MigrationKitKeys

/// The task-local values of a running command's surroundings (`CommandSurroundings`:
/// environment variables, standard input, console) and of its key sources, taken along
/// when its work moves to a thread of its own (`WorkerPool`), where task-locals do not
/// follow: a fleet's databases must write to the command's console, not the process's,
/// and share its Secret Service batch (a keyring that did not answer one database is
/// not waited for by the next). (A thread it starts shares its working folder by
/// itself.) The command's world is no task-local: it is passed (`CommandWorld`).
package struct CarriedSurroundings: @unchecked Sendable {
    private let variables = ProcessEnvironment.substitute
    private let standardInput = StandardInput.descriptor
    private let console = Console.capture
    private let secretServiceBatch = SecretServiceKeyStore.commandBatch
    private let keyCommandTimeout = KeyCommandLine.timeout
    private let keyCommandErrors = KeyCommandLine.standardErrorRelay
    private let keyCommandStop = KeyCommandLine.stopRequest

    /// The values of the task that creates it.
    package init() {}

    /// Runs `body` with the values this took.
    package func bind<T>(_ body: () throws -> T) rethrows -> T {
        try ProcessEnvironment.$substitute.withValue(variables) {
            try StandardInput.$descriptor.withValue(standardInput) {
                try SecretServiceKeyStore.$commandBatch.withValue(secretServiceBatch) {
                    try KeyCommandLine.$timeout.withValue(keyCommandTimeout) {
                        try KeyCommandLine.$standardErrorRelay.withValue(keyCommandErrors) {
                            try KeyCommandLine.$stopRequest.withValue(keyCommandStop) {
                                try Console.$capture.withValue(console, operation: body)
                            }
                        }
                    }
                }
            }
        }
    }
}
