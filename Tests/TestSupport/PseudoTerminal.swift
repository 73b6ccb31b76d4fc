import Foundation

/// Runs a program on a real pseudo-terminal, as a person at a terminal would: the pty is
/// its standard input, output and error and its controlling terminal (so Ctrl-C sends
/// SIGINT), driven by Python's `pty`/`termios` modules. The driver waits for each expected
/// text before typing the next input, and reports afterwards whether the terminal's echo
/// flag is back on.
public enum PseudoTerminal {
    public struct Step: Encodable, Sendable {
        /// Text to wait for in the output before sending.
        public var expect: String
        /// What to type; "\n" is Enter, "\u{03}" is Ctrl-C, "\u{04}" is Ctrl-D, "\u{1A}" Ctrl-Z.
        public var send: String
        /// After sending, wait until the program is stopped (Ctrl-Z), record whether the
        /// terminal echoes at that moment, then continue it with SIGCONT.
        public var thenResumeFromStop: Bool = false

        public init(expect: String, send: String, thenResumeFromStop: Bool = false) {
            self.expect = expect
            self.send = send
            self.thenResumeFromStop = thenResumeFromStop
        }
    }

    public struct Result: Decodable, Sendable {
        /// The exit status, or nil when a signal ended the program.
        public var status: Int32?
        /// The signal that ended the program, if one did.
        public var signal: Int32?
        /// Everything the program wrote to the terminal, plus the terminal's own echo.
        public var transcript: String
        /// Whether ECHO was set on the terminal after the program ended.
        public var echoAfter: Bool
        public var timedOut: Bool
        /// The first expected text that never appeared, if any.
        public var missing: String?
        /// For each `thenResumeFromStop` step: whether the terminal echoed while stopped
        /// (nil if the program never stopped).
        public var echoWhileStopped: [Bool?]

        enum CodingKeys: String, CodingKey {
            case status, signal, transcript, echoAfter = "echo_after", timedOut = "timed_out", missing
            case echoWhileStopped = "echo_while_stopped"
        }

        public var errorCode: String? {
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

    /// Thrown when the driver itself could not run; its message says why.
    public struct DriverFailed: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(_ argv: [String], environment: [String: String], steps: [Step], timeout: Double = 30) throws -> Result {
        guard let python else { throw DriverFailed(description: "no python3 for the pseudo-terminal driver") }
        let request = try JSONEncoder().encode(Request(argv: argv, env: environment, steps: steps, timeout: timeout))
        let result = try ChildProcess.run([python, "-c", driver], stdin: request, timeout: timeout + 15)
        guard result.status == 0, let data = result.stdout.data(using: .utf8) else {
            throw DriverFailed(description: "the pty driver failed: \(result.stderr)")
        }
        return try JSONDecoder().decode(Result.self, from: data)
    }

    /// The system Python (not a pyenv shim), for the driver.
    private static let python: String? = {
        let directories = ["/usr/bin", "/bin"] + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return directories.map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The Python driver. Reads a JSON request on stdin, prints a JSON result on stdout.
    private static let driver = #"""
import fcntl, json, os, select, signal, subprocess, sys, termios, time

request = json.load(sys.stdin)
deadline = time.monotonic() + request["timeout"]

# Play the login shell: lead a session whose controlling terminal is the pty, and run the
# program as a foreground job in a process group of its own. (A program that led its own
# session would be an orphaned process group, in which Ctrl-Z is silently discarded.)
if os.getpid() == os.getpgrp():
    # A process group leader cannot start a session; a child of it can.
    helper = os.fork()
    if helper:
        _, status = os.waitpid(helper, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
os.setsid()
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

def start_foreground_job():
    os.setpgid(0, 0)
    # Taking the terminal from the background would stop us with SIGTTOU.
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(0, os.getpgrp())
    # As at a person's terminal: job-control signals at their defaults, even if this
    # driver was started as a background job (where the shell ignores SIGINT and SIGQUIT).
    for number in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP, signal.SIGTSTP, signal.SIGTTOU):
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])

child = subprocess.Popen(
    request["argv"], stdin=slave, stdout=slave, stderr=slave, env=request["env"],
    preexec_fn=start_foreground_job, close_fds=True)

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
echo_while_stopped = []
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
    if step["thenResumeFromStop"]:
        stopped = False
        while time.monotonic() < deadline and child.poll() is None:
            with open("/proc/%d/stat" % child.pid) as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "T":
                    stopped = True
                    break
            read_some(0.05)
        echo_while_stopped.append(bool(termios.tcgetattr(slave)[3] & termios.ECHO) if stopped else None)
        os.kill(child.pid, signal.SIGCONT)

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
    "echo_while_stopped": echo_while_stopped,
}))
"""#
}
