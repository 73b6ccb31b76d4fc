#!/usr/bin/env python3
"""Ends a test run that has stopped making progress, and says where it stopped.

    scripts/stall-watchdog.py LOG ROOT_PID [SECONDS]

Watches LOG, the output a configuration's tests write (scripts/test.sh's run_tests).
When it has not grown for SECONDS (MIGRATIONKIT_TEST_STALL_SECONDS, 900 by default:
the longest test prints within a few minutes, and the other tests print meanwhile),
the run is stalled, not slow. The watchdog then appends to LOG:

- a `✘ Stalled:` line naming the tests that started and never ended, which the run's
  summary of failures shows;
- every thread's stack in each test process under ROOT_PID, from gdb when it is
  installed (scripts/install-deps.sh installs it), in full in LOG.stacks and, for each
  thread, its frames in the project's own sources in LOG;

and kills those test processes, so that `swift test` fails now instead of at the CI's
time limit. It exits when ROOT_PID does.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

POLL_SECONDS = 15  # at most; a quarter of the stall time when that is shorter
GDB_SECONDS = 180


def children(pid):
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                found += [int(child) for child in listing.read().split()]
    except OSError:
        pass
    return found


def descendants(pid):
    result = []
    for child in children(pid):
        result.append(child)
        result += descendants(child)
    return result


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as raw:
            return raw.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_processes(root):
    """The processes that run tests: swift test's .xctest bundles (XCTest and Swift
    Testing alike)."""
    return [pid for pid in descendants(root) if ".xctest" in command_line(pid).split(" ")[0]]


def unfinished_tests(log):
    """Tests and suites that printed `started` and neither passed, failed nor skipped.
    A parameterized test's cases print only their start; the test is named once."""
    started, ended = [], set()
    with open(log, errors="replace") as text:
        for line in text:
            begun = re.search(r"◇ (?:Test|Suite) (.+?) started\.", line)
            if begun and not begun.group(1).startswith("case passing"):
                started.append(begun.group(1))
            done = re.search(r"[✔✘↳] (?:Test|Suite) (.+?) (?:passed|failed|skipped|recorded)", line)
            if done:
                ended.add(done.group(1))
    suites = {name for name in started if "(" not in name}
    return [name for name in started if name not in ended and name not in suites]


def own_frames(stacks):
    """The frames in this repository's modules (the tests are built without debug
    information, so a frame is its mangled symbol), at most five per thread, under the
    thread's header, demangled by swift-demangle when it is installed; threads with none
    are left out."""
    lines, frames = [], []
    for line in stacks.splitlines() + ["Thread (end)"]:
        if line.startswith("Thread "):
            if len(frames) > 1:
                lines += frames
            frames = [line]
        elif re.search(r"\$s\d+(MigrationKit|GRDBTestSupport)|(Sources|Tests|Integrations)/[^ ]+\.swift:\d+", line) and len(frames) < 6:
            frames.append("    " + line.strip())
    demangler = shutil.which("swift-demangle")
    if demangler and lines:
        try:
            lines = subprocess.run([demangler, "--simplified"], input="\n".join(lines), capture_output=True,
                                   text=True, errors="replace", timeout=60).stdout.splitlines()
        except subprocess.TimeoutExpired:
            pass
    return lines


def report(log, root, seconds):
    running = unfinished_tests(log)
    processes = test_processes(root)
    lines = [f"✘ Stalled: no test output for {seconds} s; the test processes {processes or '(none found)'} are "
             f"killed. Still running: {', '.join(running) or '(none named)'}"]
    gdb = shutil.which("gdb")
    for pid in processes:
        if not gdb:
            lines.append(f"stall-watchdog: gdb is not installed; no stacks of process {pid}.")
            continue
        try:
            stacks = subprocess.run([gdb, "-p", str(pid), "-batch", "-ex", "thread apply all bt"],
                                    capture_output=True, text=True, errors="replace", timeout=GDB_SECONDS).stdout
        except subprocess.TimeoutExpired:
            lines.append(f"stall-watchdog: gdb did not answer within {GDB_SECONDS} s for process {pid}.")
            continue
        with open(log + ".stacks", "a") as saved:
            saved.write(f"== process {pid}: {command_line(pid)}\n{stacks}\n")
        lines.append(f"stall-watchdog: process {pid}'s threads in this repository's code (every thread's stack is in "
                     f"{log}.stacks while the run lasts):")
        lines += own_frames(stacks)
    with open(log, "a") as out:
        out.write("\n".join(lines) + "\n")
    for line in lines:
        print(line, file=sys.stderr)
    for pid in processes:
        for process in descendants(pid) + [pid]:
            try:
                os.kill(process, signal.SIGKILL)
            except OSError:
                pass


def running(pid):
    """Whether the process exists and has not ended (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def main():
    log, root = sys.argv[1], int(sys.argv[2])
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else int(os.environ.get("MIGRATIONKIT_TEST_STALL_SECONDS", "900"))
    size, changed = -1, time.monotonic()
    while running(root):
        time.sleep(min(POLL_SECONDS, max(1, seconds // 4)))
        try:
            now = os.path.getsize(log)
        except OSError:
            now = -1
        if now != size:
            size, changed = now, time.monotonic()
        elif time.monotonic() - changed >= seconds and test_processes(root):
            report(log, root, seconds)
            size, changed = -1, time.monotonic()


if __name__ == "__main__":
    main()
