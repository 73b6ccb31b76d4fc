#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The environment a command reads: the one place the key sources (and the CLI's
/// `MIGRATIONKIT_*` settings) look a variable up. The process's own (`process`, read with
/// `getenv(3)`), or the variables given to a command run inside a process that is not
/// its own (a command line embedded in a test, which runs many at once, each with its
/// own): a value, handed down from where the command line starts (`KeyReading`, the
/// command's world).
///
/// Not `ProcessInfo.processInfo.environment`: that copies every variable, a key in
/// `MIGRATIONKIT_PASSWORD` included, into Swift strings that are never wiped. Here a
/// value is looked at where the C library keeps it, and copied only as its caller says.
package struct ProcessEnvironment: Sendable {
    /// Every variable the command sees, nothing of the process's; nil: the process's own.
    let variables: [String: String]?

    /// The process's own environment, read in place with `getenv(3)`.
    package static let process = ProcessEnvironment(variables: nil)

    /// An environment of exactly `variables`, for a command run inside a process that is
    /// not its own: no read answers from the process's.
    package init(_ variables: [String: String]) {
        self.init(variables: variables)
    }

    private init(variables: [String: String]?) {
        self.variables = variables
    }

    /// Hands the bytes of `name`'s value to `body` in place, without copying them; nil
    /// when `name` is not set. For a secret, `body` copies them into wiped storage.
    func withValueBytes<Result>(of name: String, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        if let variables {
            guard let value = variables[name] else { return nil }
            return try Array(value.utf8).withUnsafeBytes(body)
        }
        guard let value = getenv(name) else { return nil }
        return try body(UnsafeRawBufferPointer(start: value, count: strlen(value)))
    }

    /// Whether `name` is set and not empty; its value is looked at, never copied.
    func hasValue(_ name: String) -> Bool {
        withValueBytes(of: name) { !$0.isEmpty } ?? false
    }

    /// Whether `name` is set but empty.
    func isSetButEmpty(_ name: String) -> Bool {
        withValueBytes(of: name) { $0.isEmpty } ?? false
    }

    /// `name`'s value as a string, nil when not set. Only for values that are not secrets:
    /// the string is never wiped.
    ///
    /// Always nil for `KeySource.passwordEnvironmentVariable` (`MIGRATIONKIT_PASSWORD`),
    /// whatever it holds: its value is a key, and a `String` copy of it would stay in
    /// memory unwiped. Enforced here rather than left to each caller's own check; read it
    /// with `withValueBytes` into wiped storage, or ask `hasValue`/`isSetButEmpty`.
    package func string(_ name: String) -> String? {
        guard name != KeySource.passwordEnvironmentVariable else { return nil }
        return withValueBytes(of: name) { String(decoding: $0, as: UTF8.self) }
    }
}
