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

    /// One line typed in answer to a confirmation (`erase`, `retire`), without its line
    /// break, read a byte at a time so that nothing after it is consumed; nil at the end
    /// of the input, or once `stopAsked` says so. Never a key: the bytes are not wiped.
    ///
    /// - Parameter stopAsked: asked every 100 ms while nothing is typed: a signal the
    ///   process records rather than dies of (the commands' graceful stop, whose handler
    ///   restarts reads) must still end the wait, or Ctrl-C at the question would do
    ///   nothing until Enter.
    package func readLine(limit: Int = 4096, until stopAsked: () -> Bool = { false }) -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < limit {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready == 0 || (ready < 0 && errno == EINTR) {
                if stopAsked() { return nil }
                continue
            }
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }
}
