import MigrationKitFiles
import MigrationKitKeys

/// The task-local values a running command reads — its layer, locks, settings and
/// journal, and its surroundings — taken along when its work moves to a thread of its
/// own (`WorkerPool`), where task-locals do not follow: a fleet's databases must see the
/// command's settings and write to its console, not the defaults. (A thread it starts
/// shares its working folder by itself.)
package struct CommandContext: @unchecked Sendable {
    private let layer = CLIContext.currentLayer
    private let locks = CLIContext.locks
    private let resolvedSettings = CLIContext.resolvedSettings
    private let journal = CLIContext.journal
    private let emptyVariableWarning = CLIContext.emptyVariableWarning
    private let fleet = CLIContext.fleet
    private let environment = ProcessEnvironment.substitute
    private let standardInput = StandardInput.descriptor
    private let console = Console.capture

    /// The values of the task that creates it.
    package init() {}

    /// Runs `body` with the values this context took.
    package func bind<T>(_ body: () throws -> T) rethrows -> T {
        try CLIContext.$currentLayer.withValue(layer) {
            try CLIContext.$locks.withValue(locks) {
                try CLIContext.$resolvedSettings.withValue(resolvedSettings) {
                    try CLIContext.$journal.withValue(journal) {
                        try CLIContext.$emptyVariableWarning.withValue(emptyVariableWarning) {
                            try CLIContext.$fleet.withValue(fleet) {
                                try ProcessEnvironment.$substitute.withValue(environment) {
                                    try StandardInput.$descriptor.withValue(standardInput) {
                                        try Console.$capture.withValue(console, operation: body)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
