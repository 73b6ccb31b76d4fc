#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The standard input a command reads: a key (`--password-file -`, `key store`), a list
/// of databases (`--db-list -`), the answers to a prompt. The one place that names the
/// descriptor, so a command run inside a process that is not its own reads the input
/// it was given instead of the process's.
package enum StandardInput {
    /// The descriptor to read; the process's standard input unless a command line run
    /// in-process was given another (a pipe holding what a test would have piped in).
    @TaskLocal package static var descriptor: Int32 = STDIN_FILENO

    /// Whether it is a terminal: where a key would be typed at a prompt, and where
    /// reading a piped key would echo it instead.
    package static var isTerminal: Bool { isatty(descriptor) == 1 }
}
