import ArgumentParser
import MigrationKit

/// `--layout NAME`, for every command line's migrations options.
extension MigrationFolderLayout: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(name: argument)
    }

    public static var allValueStrings: [String] { acceptedNames }
}
