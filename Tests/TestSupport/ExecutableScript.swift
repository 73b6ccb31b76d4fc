import Foundation

/// Writes `script` to `path` as an executable only its owner may change.
///
/// Linux refuses to start a file any process holds open for writing (`ETXTBSY`), and
/// tests run in parallel: a child another test forks while this process has the file
/// open keeps the descriptor until it execs, so a script written here could fail to
/// start, and a shell pipeline around it would go on with empty input. The file is
/// written by a child of `sh` instead, so no descriptor for it ever exists in this
/// process to be inherited.
public func writeExecutableScript(_ path: String, _ script: String, mode: Int = 0o700) throws {
    let written = try ChildProcess.run(
        ["/bin/sh", "-c", "cat > \"$1\" && chmod \(String(mode, radix: 8)) \"$1\"", "sh", path],
        stdin: Data(script.utf8), timeout: 30)
    guard written.status == 0 else { throw ScriptNotWritten(path: path, reason: written.stderr) }
}

public struct ScriptNotWritten: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "could not write the script \(path): \(reason)" }
}
