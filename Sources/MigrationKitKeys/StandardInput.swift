#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The standard input a command reads: a key (`--password-file -`, `key store`), a list
/// of databases (`--db-list -`), the answers to a prompt. The one value that names the
/// descriptor, handed down from where the command line starts (`KeyReading`, the
/// command's world), so a command run inside a process that is not its own reads the
/// input it was given instead of the process's.
package struct StandardInput: Sendable {
    /// The descriptor to read.
    package let descriptor: Int32

    /// A command line run in-process reads `descriptor` (a pipe holding what a test
    /// would have piped in).
    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The process's standard input.
    package static let process = StandardInput(descriptor: STDIN_FILENO)

    /// Whether it is a terminal: where a key would be typed at a prompt, and where
    /// reading a piped key would echo it instead.
    package var isTerminal: Bool { isatty(descriptor) == 1 }
}
