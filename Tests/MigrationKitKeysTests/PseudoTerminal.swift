import Foundation
import Testing

/// Runs a program on a real pseudo-terminal, as a person at a terminal would: the pty is
/// its standard input, output and error and its controlling terminal (so Ctrl-C sends
/// SIGINT), driven by Python's `pty`/`termios` modules. The driver waits for each expected
/// text before typing the next input, and reports afterwards whether the terminal's echo
/// flag is back on.
enum PseudoTerminal {
    struct Step: Encodable {
        /// Text to wait for in the output before sending.
        var expect: String
        /// What to type; "\n" is Enter, "\u{03}" is Ctrl-C, "\u{04}" is Ctrl-D.
        var send: String
    }

    struct Result: Decodable {
        /// The exit status, or nil when a signal ended the program.
        var status: Int32?
        /// The signal that ended the program, if one did.
        var signal: Int32?
        /// Everything the program wrote to the terminal, plus the terminal's own echo.
        var transcript: String
        /// Whether ECHO was set on the terminal after the program ended.
        var echoAfter: Bool
        var timedOut: Bool
        /// The first expected text that never appeared, if any.
        var missing: String?

        enum CodingKeys: String, CodingKey {
            case status, signal, transcript, echoAfter = "echo_after", timedOut = "timed_out", missing
        }

        var errorCode: String? {
            transcript.split(whereSeparator: \.isNewline).first { $0.hasPrefix("error ") }
                .map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) }
        }
    }

    private struct Request: Encodable {
        var argv: [String]
        var env: [String: String]
        var steps: [Step]
        var timeout: Double
    }

    static func run(_ argv: [String], environment: [String: String], steps: [Step], timeout: Double = 30) throws -> Result {
        guard let python = Paths.python else {
            throw POSIXError(.ENOENT)
        }
        let request = try JSONEncoder().encode(Request(argv: argv, env: environment, steps: steps, timeout: timeout))
        let result = try runProgram(python, ["-c", driver], stdin: request, timeout: timeout + 15)
        guard result.status == 0, let data = result.stdout.data(using: .utf8) else {
            Issue.record("the pty driver failed: \(result.stderr)")
            throw POSIXError(.EIO)
        }
        return try JSONDecoder().decode(Result.self, from: data)
    }

    /// The Python driver. Reads a JSON request on stdin, prints a JSON result on stdout.
    private static let driver = #"""
import fcntl, json, os, select, signal, subprocess, sys, termios, time

request = json.load(sys.stdin)
deadline = time.monotonic() + request["timeout"]
master, slave = os.openpty()

def become_controlling_terminal():
    # start_new_session made the child a session leader; take the pty as its terminal.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    # As at a person's terminal: job-control signals at their defaults, even if this
    # driver was started as a background job (where the shell ignores SIGINT and SIGQUIT).
    for number in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP, signal.SIGTSTP):
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])

child = subprocess.Popen(
    request["argv"], stdin=slave, stdout=slave, stderr=slave, env=request["env"],
    start_new_session=True, preexec_fn=become_controlling_terminal, close_fds=True)

transcript = b""
def read_some(wait):
    global transcript
    ready, _, _ = select.select([master], [], [], wait)
    if ready:
        try:
            transcript += os.read(master, 4096)
        except OSError:
            pass

missing = None
timed_out = False
position = 0  # only output after what the previous step awaited counts for the next
for step in request["steps"]:
    expected = step["expect"].encode()
    while transcript.find(expected, position) < 0 and time.monotonic() < deadline and child.poll() is None:
        read_some(0.05)
    read_some(0)
    found = transcript.find(expected, position)
    if found < 0:
        missing = step["expect"]
        break
    position = found + len(expected)
    os.write(master, step["send"].encode())

while child.poll() is None and time.monotonic() < deadline:
    read_some(0.05)
if child.poll() is None:
    timed_out = True
    child.kill()
    child.wait()
for _ in range(5):
    read_some(0.05)

lflag = termios.tcgetattr(slave)[3]
code = child.returncode
print(json.dumps({
    "status": code if code >= 0 else None,
    "signal": -code if code < 0 else None,
    "transcript": transcript.decode("utf-8", "replace"),
    "echo_after": bool(lflag & termios.ECHO),
    "timed_out": timed_out,
    "missing": missing,
}))
"""#
}
