/// An error that knows which file and line it comes from, such as a failing statement
/// in a migration file. The runner uses it to report `file:line`, in the form
/// compilers use, so editors and terminals can jump straight there.
public protocol SourceLocatedError: Error {
    /// The file the error comes from.
    var sourcePath: String { get }
    /// 1-based line, when known.
    var sourceLine: Int? { get }
    /// What the database layer threw, when this error wraps one.
    var underlyingError: (any Error)? { get }
}

extension SourceLocatedError {
    var underlyingError: (any Error)? { nil }
}
