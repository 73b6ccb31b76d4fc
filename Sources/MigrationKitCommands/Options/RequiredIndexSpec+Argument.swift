import ArgumentParser
import MigrationKit

/// `--require-index table:index`, for every command line's `migrate` and `verify`.
extension RequiredIndexSpec: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}
