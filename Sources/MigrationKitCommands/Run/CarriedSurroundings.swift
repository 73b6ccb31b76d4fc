import MigrationKitFiles
import MigrationKitKeys

/// The task-local values of a running command's surroundings (`CommandSurroundings`:
/// environment variables, standard input, console), taken along when its work moves to
/// a thread of its own (`WorkerPool`), where task-locals do not follow: a fleet's
/// databases must write to the command's console, not the process's. (A thread it
/// starts shares its working folder by itself.) The command's world is no task-local:
/// it is passed (`CommandWorld`), with how its keys are read (`KeyReading`).
package struct CarriedSurroundings: @unchecked Sendable {
    private let variables = ProcessEnvironment.substitute
    private let standardInput = StandardInput.descriptor
    private let console = Console.capture

    /// The values of the task that creates it.
    package init() {}

    /// Runs `body` with the values this took.
    package func bind<T>(_ body: () throws -> T) rethrows -> T {
        try ProcessEnvironment.$substitute.withValue(variables) {
            try StandardInput.$descriptor.withValue(standardInput) {
                try Console.$capture.withValue(console, operation: body)
            }
        }
    }
}
