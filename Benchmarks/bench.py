#!/usr/bin/env python3
"""MigrationKit benchmarks: `migrationkit` against the `sqlcipher` shell.

Run through `make bench` (Benchmarks/run.sh builds the release binary and the
key-derivation counter first). Every timed command runs as a child process; its wall
time is measured here, and its peak memory (ru_maxrss) and CPU time come from
wait4(2), so nothing but the command itself is measured. Setup (generating folders,
building template databases, copying them) is never timed.

Environment overrides (defaults in brackets):
  BENCH_RUNS [5]            timed runs per variant (cases 1-3); the table shows the
                            median and the fastest run
  BENCH_FLEET_RUNS [1]      timed runs per variant of case 4 (each run is itself
                            BENCH_FLEET commands, so one run already averages many)
  BENCH_STEPS [300]         case 1: small schema migrations
  BENCH_ROWS [1000000]      case 2: rows rewritten by the data migration
  BENCH_MEMORY_ROWS [100000,300000]  case 2 again at these sizes (one run each) for peak memory
  BENCH_HISTORY [10000]     case 3: applied migrations
  BENCH_FLEET [1000]        case 4: databases in the fleet
  BENCH_PARALLEL [nproc]    case 4: workers for the parallel fleet (0: skip it)
  BENCH_STARTS [100]        case 6: process starts per variant and run
  BENCH_REKEY_FLEET [200]   case 8: databases rekeyed
  BENCH_STATUS_FLEET [1000] case 9: databases whose status is read
  BENCH_CASES [1,2,3,4,5,6,7,8,9] which cases to run
  BENCH_DIR [Benchmarks/results/work]  scratch folder (emptied first)
  BENCH_MIGRATIONKIT, BENCH_SQLCIPHER, BENCH_KDFCOUNT  the binaries and the shim
  BENCH_COMPARE             another migrationkit binary (say, an older commit's build):
                            adds a `migrate --no-backup` / `status` row for it
  BENCH_COMPARE_LABEL [other build]  how that row is named
  BENCH_DYNAMIC             the same migrationkit linked against the shared Swift runtime
                            (run.sh builds it): case 6 compares its start-up
"""

import json
import os
import platform
import secrets
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import workloads  # noqa: E402

ROOT = os.path.dirname(HERE)


def env_int(name, default):
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


RUNS = env_int("BENCH_RUNS", 5)
FLEET_RUNS = env_int("BENCH_FLEET_RUNS", 1)
COMPARE = os.environ.get("BENCH_COMPARE", "")
COMPARE_LABEL = os.environ.get("BENCH_COMPARE_LABEL", "other build")
STEPS = env_int("BENCH_STEPS", 300)
ROWS = env_int("BENCH_ROWS", 1_000_000)
MEMORY_ROWS = [int(x) for x in os.environ.get("BENCH_MEMORY_ROWS", "100000,300000").split(",") if x.strip()]
HISTORY = env_int("BENCH_HISTORY", 10_000)
FLEET = env_int("BENCH_FLEET", 1000)
PARALLEL = env_int("BENCH_PARALLEL", os.cpu_count() or 1)
STARTS = env_int("BENCH_STARTS", 100)
REKEY_FLEET = env_int("BENCH_REKEY_FLEET", 200)
STATUS_FLEET = env_int("BENCH_STATUS_FLEET", 1000)
DYNAMIC = os.environ.get("BENCH_DYNAMIC", "")
CASES = {c.strip() for c in os.environ.get("BENCH_CASES", "1,2,3,4,5,6,7,8,9").split(",") if c.strip()}
CONFIG = os.environ.get("BENCH_CONFIG", "sqlcipher4")
WORK = os.path.abspath(os.environ.get("BENCH_DIR", os.path.join(HERE, "results", "work")))
RESULTS = os.path.join(HERE, "results")
MK = os.environ.get("BENCH_MIGRATIONKIT", os.path.join(ROOT, ".build-bench", "release", "migrationkit"))
SQLCIPHER = os.environ.get("BENCH_SQLCIPHER", "/usr/bin/sqlcipher")
KDFCOUNT = os.environ.get("BENCH_KDFCOUNT", os.path.join(RESULTS, "kdfcount.so"))

# A fresh random passphrase per run of the benchmark: SQLCipher stretches it with
# PBKDF2 on both sides. It lives in a 0600 key file for migrationkit and reaches the
# shell on its standard input; it is never printed nor written into a generated script.
PASSPHRASE = "bench-" + secrets.token_hex(12)
KEY_FILE = os.path.join(WORK, "db.key")
# Case 8's new key, as the old one: a 0600 file for migrationkit, standard input for the shell.
NEW_PASSPHRASE = "bench-new-" + secrets.token_hex(12)
NEW_KEY_FILE = os.path.join(WORK, "new.key")


# --- running commands ---------------------------------------------------------------


class Command:
    """One child process: argv, optional standard input, and a label for errors."""

    def __init__(self, argv, stdin=None, label=""):
        self.argv = argv
        self.stdin = stdin
        self.label = label or " ".join(os.path.basename(a) for a in argv[:2])


def mk(*args, binary=None):
    return Command([binary or MK, *args], label="migrationkit " + args[0])


def shell(db, script_path=None, sql=None):
    """The sqlcipher shell on `db`: the key first, then a generated script (.read) or SQL."""
    text = f"PRAGMA key = '{PASSPHRASE}';\n"
    text += f".read {script_path}\n" if script_path else sql
    return Command([SQLCIPHER, "-bail", db], stdin=text.encode(), label="sqlcipher shell")


class Failure(Exception):
    pass


def spawn(command, env, errlog):
    process = subprocess.Popen(command.argv, stdin=subprocess.PIPE if command.stdin is not None else subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=errlog, env=env)
    if command.stdin is not None:
        process.stdin.write(command.stdin)
        process.stdin.close()
    return process


TIME = "/usr/bin/time"


def run_batch(commands, parallel=1, extra_env=None, rusage=True):
    """Runs the commands (at most `parallel` at once). Returns wall seconds, the
    largest peak RSS in KiB, and summed user+system CPU seconds.

    Peak memory and CPU come from GNU time wrapped around each command: wait4's own
    ru_maxrss would include this Python process's pages, which a forked child holds
    until it execs."""
    env = dict(os.environ)
    env.pop("KDFCOUNT_FILE", None)
    env.pop("LD_PRELOAD", None)
    env.update(extra_env or {})
    errpath = os.path.join(WORK, "stderr.log")
    timepath = os.path.join(WORK, "rusage.log")
    if rusage:
        if os.path.exists(timepath):
            os.unlink(timepath)
        commands = [Command([TIME, "-a", "-o", timepath, "-f", "%M %U %S", *c.argv], c.stdin, c.label) for c in commands]
    pending = list(reversed(commands))
    running = {}
    peak_kib = 0
    cpu = 0.0
    with open(errpath, "w+b") as errlog:
        start = time.perf_counter()
        while pending or running:
            while pending and len(running) < parallel:
                command = pending.pop()
                process = spawn(command, env, errlog)
                running[process.pid] = (process, command)
            pid, status, usage = os.wait4(-1, 0)
            if pid not in running:
                continue
            process, command = running.pop(pid)
            process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
            if process.returncode != 0:
                errlog.seek(0)
                tail = errlog.read()[-2000:].decode(errors="replace")
                raise Failure(f"{command.label} exited {process.returncode}:\n{tail}")
        wall = time.perf_counter() - start
    if rusage:
        with open(timepath) as handle:
            for line in handle:
                fields = line.split()
                if len(fields) == 3 and fields[0].isdigit():
                    peak_kib = max(peak_kib, int(fields[0]))
                    cpu += float(fields[1]) + float(fields[2])
    return wall, peak_kib, cpu


def count_kdf(commands):
    """Runs the commands with the kdfcount shim; returns (real, fast) derivations per
    command as (min, max) pairs. Untimed."""
    path = os.path.join(WORK, "kdfcount.txt")
    if os.path.exists(path):
        os.unlink(path)
    run_batch(commands, extra_env={"LD_PRELOAD": KDFCOUNT, "KDFCOUNT_FILE": path}, rusage=False)
    real, fast = [], []
    with open(path) as handle:
        for line in handle:
            fields = dict(part.split("=") for part in line.split())
            real.append(int(fields["kdf"]))
            fast.append(int(fields["fast"]))
    if len(real) != len(commands):
        raise Failure(f"kdfcount: {len(real)} reports for {len(commands)} commands")
    return (min(real), max(real)), (min(fast), max(fast))


# --- results ------------------------------------------------------------------------


class Variant:
    def __init__(self, case, name, describe, prepare, commands, parallel=1, baseline=False, check=None):
        self.case = case
        self.name = name
        self.describe = describe
        self.prepare = prepare      # () -> None, untimed: fresh databases for one run
        self.commands = commands    # () -> [Command]
        self.parallel = parallel
        self.baseline = baseline    # the shell row this case's ratios divide by
        self.check = check          # () -> None, untimed: the result is what it should be
        self.walls, self.peaks, self.cpus = [], [], []
        self.kdf = None

    @property
    def wall(self):
        return statistics.median(self.walls)

    @property
    def cpu(self):
        return statistics.median(self.cpus)


def measure(variants, runs):
    """Interleaves the variants run by run, so drift on a shared machine hits all alike."""
    for variant in variants:
        variant.prepare()
        variant.kdf = count_kdf(variant.commands()[:20])  # a fleet's first 20 databases
    for run in range(runs):
        for variant in variants:
            variant.prepare()
            wall, peak, cpu = run_batch(variant.commands(), parallel=variant.parallel)
            if run == 0 and variant.check:
                variant.check()  # untimed: the run did what it should
            variant.walls.append(wall)
            variant.peaks.append(peak)
            variant.cpus.append(cpu)
            log(f"  run {run + 1}/{runs} {variant.case} {variant.name}: {wall:.3f} s, {peak / 1024:.1f} MiB")


def log(text):
    print(text, file=sys.stderr, flush=True)


def fmt_time(seconds):
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.2f} s"


def fmt_range(pair):
    low, high = pair
    return str(low) if low == high else f"{low}–{high}"


def table(variants):
    lines = ["| case | variant | wall (median) | wall (fastest) | CPU (median) | ratio to shell (median) | ratio (fastest) | peak RSS | KDF per command |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    baselines = {}
    for variant in variants:
        if variant.baseline:
            baselines[(variant.case, variant.parallel)] = variant
    for variant in variants:
        base = baselines.get((variant.case, variant.parallel))
        ratio = f"{variant.wall / base.wall:.2f}" if base and variant.walls else ""
        ratio_min = f"{min(variant.walls) / min(base.walls):.2f}" if base and variant.walls else ""
        kdf = f"{fmt_range(variant.kdf[0])} (+{fmt_range(variant.kdf[1])} HMAC-key)" if variant.kdf else ""
        lines.append(f"| {variant.case} | {variant.name} | {fmt_time(variant.wall)} | {fmt_time(min(variant.walls))} | {fmt_time(variant.cpu)} | "
                     f"{ratio} | {ratio_min} | {max(variant.peaks) / 1024:.1f} MiB | {kdf} |")
    return "\n".join(lines)


def checks_table(variants):
    """Issue 25's ratios: each migrationkit row of a case against the shell doing issue
    25's baseline (the ledger row, then quick_check and foreign_key_check), and against the
    shell doing every check migrate makes, as a shell would (a history row and a
    foreign_key_check in every step's transaction). Two statistics: the ratio of the
    medians, and the median of the run-by-run ratios (the variants run interleaved, so run
    i of each met the same moment of the machine: the better estimate on a noisy disk)."""
    lines = ["| case | variant | against issue 25's baseline: medians | run by run | against every check, as a shell: medians | run by run |",
             "|---|---|---:|---:|---:|---:|"]
    shells = {(v.case, v.parallel, v.name): v for v in variants}
    for variant in variants:
        if not variant.name.startswith("migrationkit") or not variant.walls:
            continue
        cells = []
        for name in (ISSUE_SHELL, CHECKS_SHELL):
            base = shells.get((variant.case, variant.parallel, name))
            if base is None or len(base.walls) != len(variant.walls):
                cells += ["", ""]
                continue
            paired = statistics.median(a / b for a, b in zip(variant.walls, base.walls))
            cells += [f"{variant.wall / base.wall:.2f}", f"{paired:.2f}"]
        if any(cells):
            lines.append(f"| {variant.case} | {variant.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def memory_table(variants):
    """Case 2's peak RSS by row count: the shell, migrationkit, and the difference; and,
    where it ran, the shell keeping its temporary files in memory as libsqlcipher does."""
    sizes = {}
    for variant in variants:
        if not variant.case.startswith("2 (") or not variant.peaks:
            continue
        rows = int(variant.case.split("(")[1].split()[0].replace(",", ""))
        column = {"sqlcipher shell": "shell", "migrationkit migrate --no-backup": "mk", MEMTEMP_SHELL: "memtemp"}.get(variant.name)
        if column:
            sizes.setdefault(rows, {})[column] = max(variant.peaks)
    with_memtemp = any("memtemp" in columns for columns in sizes.values())
    header = "| rows | sqlcipher shell | migrationkit migrate | difference |"
    rule = "|---:|---:|---:|---:|"
    if with_memtemp:
        header += " shell, temporary files in memory | migrationkit's difference to it |"
        rule += "---:|---:|"
    lines = [header, rule]
    mib = lambda kib: f"{kib / 1024:.1f} MiB"
    for rows in sorted(sizes):
        shell_kib, mk_kib, memtemp_kib = (sizes[rows].get(key) for key in ("shell", "mk", "memtemp"))
        if shell_kib is None or mk_kib is None:
            continue
        line = f"| {rows:,} | {mib(shell_kib)} | {mib(mk_kib)} | {(mk_kib - shell_kib) / 1024:+.1f} MiB |"
        if with_memtemp:
            line += f" {mib(memtemp_kib)} | {(mk_kib - memtemp_kib) / 1024:+.1f} MiB |" if memtemp_kib else " | |"
        lines.append(line)
    return "\n".join(lines) if len(lines) > 2 else ""


# --- helpers for databases -------------------------------------------------------------


def fresh(path):
    for suffix in ("", "-journal", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    folder = os.path.dirname(path)
    for name in os.listdir(folder):
        if name.startswith(os.path.basename(path) + ".backup-"):
            os.unlink(os.path.join(folder, name))


def copy(template, path):
    fresh(path)
    shutil.copyfile(template, path)
    os.chmod(path, 0o600)


def query(db, sql):
    """One value from the shell (untimed checks)."""
    text = f"PRAGMA key = '{PASSPHRASE}';\n{sql}\n"
    result = subprocess.run([SQLCIPHER, "-bail", db], input=text.encode(), capture_output=True, check=True)
    return result.stdout.decode().strip().splitlines()[-1]


def expect(db, sql, wanted):
    got = query(db, sql)
    if got != str(wanted):
        raise Failure(f"check failed on {db}: {sql} gave {got!r}, expected {wanted!r}")


def mk_migrate(db, folder, *extra, binary=None):
    return mk("migrate", "--db-path", db, "--migrations", folder, "--password-file", KEY_FILE, "--quiet", *extra, binary=binary)


def migrate_options(full):
    """(row name, extra arguments, database kind, binary) for the migrationkit rows."""
    options = [("migrationkit migrate --no-backup", ["--no-backup"], "mk", None)]
    if full:
        options += [("migrationkit migrate --no-backup --verify full", ["--no-backup", "--verify", "full"], "mk-verifyfull", None),
                    ("migrationkit migrate --no-backup --no-lint", ["--no-backup", "--no-lint"], "mk-nolint", None),
                    ("migrationkit migrate (backup on)", [], "mk-backup", None)]
        if CONFIG == "sqlcipher4":
            # The price of asking for cipher_memory_security (SQLCipher 4 only; off by default).
            options.append(("migrationkit migrate --no-backup --memory-security", ["--no-backup", "--memory-security"], "mk-memsec", None))
    if COMPARE:
        options.append((f"migrationkit migrate --no-backup [{COMPARE_LABEL}]", ["--no-backup"], "mk-compare", COMPARE))
    return options


# --- the cases ----------------------------------------------------------------------------


MEMTEMP_SHELL = "sqlcipher shell, temp_store = MEMORY (as libsqlcipher is built)"
ISSUE_SHELL = "shell, then quick_check(1), foreign_key_check (issue 25's baseline)"
CHECKS_SHELL = "shell + history rows and whole-file quick_check, foreign_key_check"
CHECKS_TRUNCATE_SHELL = "shell + history rows and the same checks, journal_mode = TRUNCATE (as migrate commits)"


def shell_variants(case, folder, identifiers, db_for, prepare, check, commands_for=None, parallel=1, which=workloads.SHELL_VARIANTS):
    variants = []
    for kind in which:
        slug = "".join(c for c in case.split(" ")[0] if c.isalnum())
        script = workloads.shell_script(os.path.join(WORK, f"case{slug}-{kind}-p{parallel}.sql"), folder, identifiers, kind)
        describe = {"min": "BEGIN IMMEDIATE; file; ledger row; COMMIT — per file",
                    "12step": "as shell, plus PRAGMA foreign_key_check before each COMMIT",
                    "issue": "as shell, then quick_check(1) + foreign_key_check after the last file",
                    "full": "as shell (12-step), plus history row per file and a final quick_check(1) + foreign_key_check",
                    "memtemp": "as shell, with PRAGMA temp_store = MEMORY first",
                    "fulltrunc": "as the full shell, committing as migrate does: PRAGMA journal_mode = TRUNCATE for the run"}[kind]
        name = {"min": "sqlcipher shell", "12step": "shell + foreign_key_check", "issue": ISSUE_SHELL,
                "full": CHECKS_SHELL,
                "memtemp": MEMTEMP_SHELL,
                "fulltrunc": CHECKS_TRUNCATE_SHELL}[kind]
        if parallel > 1:
            name += f" ×{parallel} parallel"
        dbs = db_for(kind)
        variants.append(Variant(
            case, name, describe, prepare=(lambda dbs=dbs: prepare(dbs)),
            commands=(lambda dbs=dbs, script=script: [shell(db, script) for db in dbs]),
            parallel=parallel, baseline=(kind == "min"), check=(lambda dbs=dbs: check(dbs))))
    return variants


def case1():
    folder = os.path.join(WORK, "case1-migrations")
    identifiers = workloads.small_schema_migrations(folder, STEPS)

    def dbs(kind):
        return [os.path.join(WORK, f"case1-{kind}.db")]

    def prepare(paths):
        for path in paths:
            fresh(path)

    def check(paths):
        for path in paths:
            expect(path, "SELECT count(*) FROM grdb_migrations;", STEPS)
            expect(path, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 't%';", (STEPS + 2) // 3)

    variants = shell_variants("1", folder, identifiers, dbs, prepare, check,
                              which=workloads.SHELL_VARIANTS + ("fulltrunc",))
    # The database does not exist before the run, so "backup on" would copy nothing.
    for name, extra, kind, binary in migrate_options(True):
        if kind == "mk-backup":
            continue
        paths = dbs(kind)
        variants.append(Variant("1", name, "", prepare=(lambda p=paths: prepare(p)),
                                commands=(lambda p=paths, e=extra, b=binary: [mk_migrate(p[0], folder, *e, binary=b)]),
                                check=(lambda p=paths: check(p))))
    return variants


def migrated_template(case, rows):
    """A database with users and `rows` events, migrated by migrationkit (so its
    history and checksums are MigrationKit's own), and the identifiers applied."""
    base = os.path.join(WORK, f"case{case}-base-{rows}")
    identifiers = workloads.data_base_migrations(base, rows)
    template = os.path.join(WORK, f"case{case}-template-{rows}.db")
    fresh(template)
    log(f"case {case}: building a {rows}-row template (untimed)")
    run_batch([mk_migrate(template, base, "--no-backup", "--no-lint")])
    return template, identifiers


def data_template(rows):
    """Case 2's template, plus the folder with the pending 12-step migration."""
    template, identifiers = migrated_template(2, rows)
    full = os.path.join(WORK, f"case2-migrations-{rows}")
    workloads.data_base_migrations(full, rows)
    pending = workloads.data_migration(full)
    return template, full, identifiers + [pending], [pending]


def template_variants(label, case, template, folder, pending, expectations, which, options):
    """The variants of a case that migrates one copy of `template` per variant: the
    shell scripts named by `which`, then `migrationkit migrate` with each of `options`
    (name, extra arguments, database kind, binary). `expectations` are (SQL, answer)
    pairs each migrated copy must give."""
    def dbs(kind):
        return [os.path.join(WORK, f"case{case}-{kind}.db")]

    def prepare(paths):
        for path in paths:
            copy(template, path)

    def check(paths):
        for path in paths:
            for sql, wanted in expectations:
                expect(path, sql, wanted)

    variants = shell_variants(label, folder, pending, dbs, prepare, check, which=which)
    for name, extra, kind, binary in options:
        paths = dbs(kind)
        variants.append(Variant(label, name, "", prepare=(lambda p=paths: prepare(p)),
                                commands=(lambda p=paths, e=extra, b=binary: [mk_migrate(p[0], folder, *e, binary=b)]),
                                check=(lambda p=paths: check(p))))
    return variants


def case2(rows=ROWS, memory_only=False):
    template, folder, all_ids, pending = data_template(rows)
    size_mib = os.path.getsize(template) / 1024 / 1024
    expectations = [("SELECT count(*), sum(size) > 0 FROM events;", f"{rows}|1"),
                    ("SELECT count(*) FROM grdb_migrations;", len(all_ids)),
                    ("SELECT sql LIKE '%created_at INTEGER%' FROM sqlite_master WHERE name = 'events';", 1)]
    which = ("min",) if memory_only else workloads.SHELL_VARIANTS
    if CONFIG == "sqlcipher4":
        # Its shell writes temporary files; libsqlcipher keeps them in memory.
        which += ("memtemp",)
    options = migrate_options(True) if not memory_only else migrate_options(False)[:1]
    variants = template_variants(f"2 ({rows:,} rows)", 2, template, folder, pending, expectations, which, options)
    return variants, size_mib


def verification_costs(rows):
    """What migrationkit's verification costs on the migrated database, measured with
    the shell alone: open+key, then quick_check(1), then foreign_key_check."""
    migrated = os.path.join(WORK, "case2-mk.db")
    variants = []
    for name, sql in (("shell: key + read sqlite_master", "SELECT count(*) FROM sqlite_master;\n"),
                      ("shell: key + PRAGMA quick_check(1)", "PRAGMA quick_check(1);\n"),
                      ("shell: key + PRAGMA foreign_key_check", "PRAGMA foreign_key_check;\n")):
        variants.append(Variant(f"2v ({rows:,} rows)", name, "", prepare=lambda: None,
                                commands=(lambda sql=sql: [shell(migrated, sql=sql)])))
    return variants


def case3():
    folder = os.path.join(WORK, "case3-migrations")
    identifiers = workloads.long_history(folder, HISTORY)
    db = os.path.join(WORK, "case3.db")
    fresh(db)
    log(f"case 3: applying {HISTORY} migrations in one transaction (untimed)")
    run_batch([mk_migrate(db, folder, "--no-backup", "--no-lint", "--atomic")])
    expect(db, "SELECT count(*) FROM grdb_migrations;", HISTORY)
    label = f"3 ({HISTORY:,} applied)"
    status_args = ["--db-path", db, "--migrations", folder, "--password-file", KEY_FILE]
    files = sorted(os.path.join(folder, name) for name in os.listdir(folder))
    variants = [
        # The floor status cannot go below: read every migration file, and the ledger.
        Variant(label, "floor: cat of the migrations folder, then the shell's ledger query", "", prepare=lambda: None,
                commands=lambda: [Command(["cat", *files], label="cat"), shell(db, sql="SELECT identifier FROM grdb_migrations ORDER BY rowid;\n")],
                baseline=True),
        Variant(label, "sqlcipher shell: SELECT identifier FROM grdb_migrations ORDER BY rowid", "", prepare=lambda: None,
                commands=lambda: [shell(db, sql="SELECT identifier FROM grdb_migrations ORDER BY rowid;\n")]),
        Variant(label, "migrationkit status", "", prepare=lambda: None, commands=lambda: [mk("status", *status_args)]),
        Variant(label, "migrationkit status --json", "", prepare=lambda: None, commands=lambda: [mk("status", "--json", *status_args)]),
    ]
    if COMPARE:
        variants.append(Variant(label, f"migrationkit status [{COMPARE_LABEL}]", "", prepare=lambda: None,
                                commands=lambda: [mk("status", *status_args, binary=COMPARE)]))
    return variants


def case4():
    v1 = os.path.join(WORK, "case4-v1")
    v2 = os.path.join(WORK, "case4-v2")
    pending = workloads.fleet_migrations(v1, v2)
    template = os.path.join(WORK, "case4-template.db")
    fresh(template)
    run_batch([mk_migrate(template, v1, "--no-backup", "--no-lint")])
    fleet_dir = os.path.join(WORK, "case4-fleet")
    os.makedirs(fleet_dir, exist_ok=True)
    label = f"4 ({FLEET:,} databases)"

    def dbs(kind):
        folder = os.path.join(fleet_dir, kind)
        os.makedirs(folder, exist_ok=True)
        return [os.path.join(folder, f"user{i:05d}.db") for i in range(FLEET)]

    def prepare(paths):
        for path in paths:
            copy(template, path)

    def check(paths):
        for path in (paths[0], paths[-1]):
            expect(path, "SELECT count(*) FROM grdb_migrations;", len(workloads.FLEET_V1) + len(pending))
            expect(path, "SELECT count(*), typeof(max(updated_at)) FROM notes;", "200|integer")

    modes = [1] + ([PARALLEL] if PARALLEL > 1 else [])
    variants = []
    for parallel in modes:
        suffix = "" if parallel == 1 else f"-p{parallel}"
        which = ("min", "full") if parallel == 1 else ("min",)
        variants += shell_variants(label, v2, pending, lambda kind, s=suffix: dbs(kind + s), prepare, check,
                                   parallel=parallel, which=which)
        options = migrate_options(parallel == 1) if parallel == 1 else migrate_options(False)[:1]
        for name, extra, kind, binary in options:
            paths = dbs(kind + suffix)
            if parallel > 1:
                name += f" ×{parallel} parallel"
            variants.append(Variant(label, name, "", prepare=(lambda p=paths: prepare(p)),
                                    commands=(lambda p=paths, e=extra, b=binary: [mk_migrate(db, v2, *e, binary=b) for db in p]),
                                    parallel=parallel, check=(lambda p=paths: check(p))))
        # Fleet mode: one process for the whole fleet, `parallel` databases at a time
        # (each database all or nothing), against the shell run as `parallel` processes.
        paths = dbs("mk-fleet" + suffix)
        pattern = os.path.join(os.path.dirname(paths[0]), "*.db")
        variants.append(Variant(label, f"migrationkit migrate --db-glob --jobs {parallel} --no-backup (one process)", "",
                                prepare=(lambda p=paths: prepare(p)),
                                commands=(lambda g=pattern, j=parallel: [mk("migrate", "--db-glob", g, "--migrations", v2, "--password-file", KEY_FILE,
                                                                            "--quiet", "--no-backup", "--jobs", str(j))]),
                                parallel=parallel, check=(lambda p=paths: check(p))))
    return variants


def fleet_of(template, folder, count):
    """`count` copies of `template` in `folder` (made once; `prepare` copies them again)."""
    os.makedirs(folder, exist_ok=True)
    return [os.path.join(folder, f"tenant{i:05d}.db") for i in range(count)]


def case8():
    """Key rotation across a fleet: `rekey` over every database in one process, two at a
    time, against the shell's `PRAGMA rekey` run once per database, two processes at a
    time. Both derive the old key and the new one; rekey also proves the new key opens
    the file and replaces it durably."""
    folder = os.path.join(WORK, "case8-migrations")
    workloads.fleet_migrations(folder, os.path.join(WORK, "case8-unused"))
    template = os.path.join(WORK, "case8-template.db")
    fresh(template)
    run_batch([mk_migrate(template, folder, "--no-backup", "--no-lint")])
    label = f"8 (rekey {REKEY_FLEET:,} databases, 2 at a time)"

    def prepare(paths):
        for path in paths:
            copy(template, path)

    def check(paths):
        for path in (paths[0], paths[-1]):
            text = f"PRAGMA key = '{NEW_PASSPHRASE}';\nSELECT count(*) FROM sqlite_master;\n"
            result = subprocess.run([SQLCIPHER, "-bail", path], input=text.encode(), capture_output=True)
            if result.returncode != 0:
                raise Failure(f"check failed on {path}: the new key does not open it")

    def check_generated(paths):
        for path in (paths[0], paths[-1]):
            with open(os.path.splitext(path)[0] + ".new") as handle:
                key = handle.read().strip()
            text = f'PRAGMA key = "{key}";\nSELECT count(*) FROM sqlite_master;\n'
            result = subprocess.run([SQLCIPHER, "-bail", path], input=text.encode(), capture_output=True)
            if result.returncode != 0:
                raise Failure(f"check failed on {path}: its generated key does not open it")

    shell_paths = fleet_of(template, os.path.join(WORK, "case8-shell"), REKEY_FLEET)
    mk_paths = fleet_of(template, os.path.join(WORK, "case8-mk"), REKEY_FLEET)
    shell_raw_paths = fleet_of(template, os.path.join(WORK, "case8-shell-raw"), REKEY_FLEET)
    mk_raw_paths = fleet_of(template, os.path.join(WORK, "case8-mk-raw"), REKEY_FLEET)
    rekey_sql = f"PRAGMA key = '{PASSPHRASE}';\nPRAGMA rekey = '{NEW_PASSPHRASE}';\n"
    # Rotation to machine-made keys: a new random raw key per database (no derivation).
    raw_sql = {db: f"PRAGMA key = '{PASSPHRASE}';\nPRAGMA rekey = \"x'{secrets.token_hex(32)}'\";\n" for db in shell_raw_paths}
    raw_label = f"8 (rotate {REKEY_FLEET:,} databases to new raw keys, 2 at a time)"
    return [
        Variant(label, "sqlcipher shell: PRAGMA key; PRAGMA rekey ×2 parallel", "", prepare=lambda: prepare(shell_paths),
                commands=lambda: [Command([SQLCIPHER, "-bail", db], stdin=rekey_sql.encode(), label="sqlcipher shell") for db in shell_paths],
                parallel=2, baseline=True, check=lambda: check(shell_paths)),
        Variant(label, "migrationkit rekey --db-glob --jobs 2 --no-backup (one process)", "", prepare=lambda: prepare(mk_paths),
                commands=lambda: [mk("rekey", "--db-glob", os.path.join(os.path.dirname(mk_paths[0]), "*.db"), "--password-file", KEY_FILE,
                                     "--new-password-file", NEW_KEY_FILE, "--jobs", "2", "--no-backup", "--quiet")],
                parallel=2, check=lambda: check(mk_paths)),
        Variant(raw_label, "sqlcipher shell: PRAGMA key; PRAGMA rekey = x'…' ×2 parallel", "", prepare=lambda: prepare(shell_raw_paths),
                commands=lambda: [Command([SQLCIPHER, "-bail", db], stdin=raw_sql[db].encode(), label="sqlcipher shell") for db in shell_raw_paths],
                parallel=2, baseline=True),
        Variant(raw_label, "migrationkit rekey --db-glob --new-key generate --jobs 2 --no-backup (one process)", "",
                prepare=lambda: prepare(mk_raw_paths),
                commands=lambda: [mk("rekey", "--db-glob", os.path.join(os.path.dirname(mk_raw_paths[0]), "*.db"), "--password-file", KEY_FILE,
                                     "--new-password-file", os.path.join(os.path.dirname(mk_raw_paths[0]), "{name}.new"), "--new-key", "generate",
                                     "--jobs", "2", "--no-backup", "--quiet")],
                parallel=2, check=lambda: check_generated(mk_raw_paths)),
    ]


def case9():
    """A fleet's status: `status` over every database in one process, against the shell
    reading each ledger once (one process per database), both one database at a time;
    and at a tenth of the fleet, so the peak memory of the two sizes can be compared."""
    folder = os.path.join(WORK, "case9-migrations")
    workloads.fleet_migrations(folder, os.path.join(WORK, "case9-unused"))
    template = os.path.join(WORK, "case9-template.db")
    fresh(template)
    run_batch([mk_migrate(template, folder, "--no-backup", "--no-lint")])
    variants = []
    for count in (STATUS_FLEET, max(1, STATUS_FLEET // 10)):
        label = f"9 (status of {count:,} databases)"
        paths = fleet_of(template, os.path.join(WORK, f"case9-{count}"), count)
        for path in paths:
            copy(template, path)
        ledger = f"PRAGMA key = '{PASSPHRASE}';\nSELECT identifier FROM grdb_migrations ORDER BY identifier;\n"
        variants += [
            Variant(label, "sqlcipher shell: PRAGMA key; SELECT the ledger, once per database", "", prepare=lambda: None,
                    commands=lambda p=paths: [Command([SQLCIPHER, "-bail", db], stdin=ledger.encode(), label="sqlcipher shell") for db in p],
                    baseline=True),
            Variant(label, "migrationkit status --db-glob --jobs 1 (one process)", "", prepare=lambda: None,
                    commands=lambda p=paths: [mk("status", "--db-glob", os.path.join(os.path.dirname(p[0]), "*.db"), "--migrations", folder,
                                                 "--password-file", KEY_FILE, "--jobs", "1", "--quiet")]),
        ]
    return variants


# --- the machine -----------------------------------------------------------------------


def machine():
    def first(path, prefix):
        try:
            with open(path) as handle:
                for line in handle:
                    if line.startswith(prefix):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return "?"

    def output(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True).stdout.strip().splitlines()[0]
        except (OSError, IndexError):
            return "?"

    meminfo = first("/proc/meminfo", "MemTotal")
    memory_kib = int(meminfo.split()[0]) if meminfo != "?" else 0
    df = subprocess.run(["df", "-T", WORK], capture_output=True, text=True).stdout.splitlines()[-1].split()
    pretty = "?"
    with open("/etc/os-release") as handle:
        for line in handle:
            if line.startswith("PRETTY_NAME="):
                pretty = line.split("=", 1)[1].strip().strip('"')
    return {
        "cpu": first("/proc/cpuinfo", "model name"),
        "cores": os.cpu_count(),
        "memory": f"{memory_kib / 1024 / 1024:.1f} GiB",
        "kernel": platform.release(),
        "os": pretty,
        "filesystem": f"{df[1]} on {df[0]}" if len(df) > 1 else "?",
        "sqlcipher shell": output([SQLCIPHER, "-version"]),
        "swift": output(["swift", "--version"]) if shutil.which("swift") else output(["/opt/swift/usr/bin/swift", "--version"]),
        "load average at start": " ".join(open("/proc/loadavg").read().split()[:3]),
    }


def case5():
    """Format detection: opening a database in the linked library's own format, in
    another known format with no settings given (detected: one more key derivation), and
    in that format with its settings given (none extra). The other format's file is grown
    to a multiple of 4096 bytes, so the page-size shortcut cannot skip the first try."""
    folder = os.path.join(WORK, "case5-migrations")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "0001_notes.sql"), "w") as handle:
        handle.write("-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\nCREATE TABLE pad (b BLOB);\n")
    own = os.path.join(WORK, "case5-own.db")
    other = os.path.join(WORK, "case5-other.db")
    other_version = "3" if CONFIG == "sqlcipher4" else "2"
    for path, settings in ((own, []), (other, ["--cipher-compatibility", other_version])):
        fresh(path)
        run_batch([mk_migrate(path, folder, "--no-backup", "--no-lint", *settings)])
    pragma = f"PRAGMA cipher_compatibility = {other_version};\n" if CONFIG == "sqlcipher4" else "PRAGMA kdf_iter = 4000;\n"
    while os.path.getsize(other) % 4096 != 0:
        run_batch([shell(other, sql=pragma + "INSERT INTO pad VALUES (zeroblob(700));\n")], rusage=False)
    label = "5 (format detection)"
    args = ["--migrations", folder, "--password-file", KEY_FILE]
    return [
        Variant(label, "sqlcipher shell: key + read, own format", "", prepare=lambda: None,
                commands=lambda: [shell(own, sql="SELECT count(*) FROM sqlite_master;\n")], baseline=True),
        Variant(label, "migrationkit status, own format", "", prepare=lambda: None,
                commands=lambda: [mk("status", "--db-path", own, *args)]),
        Variant(label, f"migrationkit status, SQLCipher {other_version} format, detected", "", prepare=lambda: None,
                commands=lambda: [mk("status", "--db-path", other, *args)]),
        Variant(label, f"migrationkit status, SQLCipher {other_version} format, --cipher-compatibility {other_version}", "",
                prepare=lambda: None,
                commands=lambda: [mk("status", "--db-path", other, "--cipher-compatibility", other_version, *args)]),
    ]


def case7():
    """A small migration on a large database: what verifying only the changed tables
    saves, against the whole-file checks of --verify full."""
    template, _ = migrated_template(7, ROWS)
    folder = os.path.join(WORK, f"case7-migrations-{ROWS}")
    workloads.data_base_migrations(folder, ROWS)
    pending = [workloads.small_change(folder)]
    options = [("migrationkit migrate --no-backup (verifies the changed tables)", ["--no-backup"], "mk", None),
               ("migrationkit migrate --no-backup --verify full", ["--no-backup", "--verify", "full"], "mk-full", None)]
    if CONFIG == "sqlcipher4":
        options.append(("migrationkit migrate --no-backup --memory-security", ["--no-backup", "--memory-security"], "mk-memsec", None))
    expectations = [("SELECT count(*) FROM tags;", 2), ("SELECT count(*) FROM events;", ROWS)]
    return template_variants(f"7 (small change, {ROWS:,}-row database)", 7, template, folder, pending, expectations,
                             ("min", "full"), options)


def case6():
    """Start-up: a process that does almost nothing, many times over. The release
    binary links the Swift runtime and Foundation statically (run.sh); the dynamically
    linked build of the same code shows what that saves."""
    folder = os.path.join(WORK, "case6-migrations")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "0001_notes.sql"), "w") as handle:
        handle.write("-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\n")
    db = os.path.join(WORK, "case6-plain.db")
    fresh(db)
    run_batch([mk("migrate", "--db-path", db, "--migrations", folder, "--plaintext", "--quiet", "--no-backup")])
    label = f"6 (start-up, {STARTS} processes)"
    status = ["status", "--db-path", db, "--migrations", folder, "--plaintext"]
    variants = [
        Variant(label, "sqlcipher shell: SELECT count(*) FROM grdb_migrations (plaintext)", "", prepare=lambda: None,
                commands=lambda: [Command([SQLCIPHER, db, "SELECT count(*) FROM grdb_migrations;"], label="sqlcipher shell")] * STARTS,
                baseline=True),
        Variant(label, "migrationkit --version (static Swift runtime)", "", prepare=lambda: None,
                commands=lambda: [mk("--version")] * STARTS),
        Variant(label, "migrationkit status --plaintext (static Swift runtime)", "", prepare=lambda: None,
                commands=lambda: [mk(*status)] * STARTS),
    ]
    if DYNAMIC:
        variants += [
            Variant(label, "migrationkit --version (shared Swift runtime)", "", prepare=lambda: None,
                    commands=lambda: [mk("--version", binary=DYNAMIC)] * STARTS),
            Variant(label, "migrationkit status --plaintext (shared Swift runtime)", "", prepare=lambda: None,
                    commands=lambda: [mk(*status, binary=DYNAMIC)] * STARTS),
        ]
    return variants


def main():
    for path, what in ((MK, "the migrationkit release binary (run make bench)"), (SQLCIPHER, "the sqlcipher shell"),
                       (KDFCOUNT, "kdfcount.so (run make bench)")):
        if not os.path.exists(path):
            sys.exit(f"bench: {what} is missing: {path}")
    if os.path.isdir(WORK):
        shutil.rmtree(WORK)
    os.makedirs(WORK)
    for path, passphrase in ((KEY_FILE, PASSPHRASE), (NEW_KEY_FILE, NEW_PASSPHRASE)):
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
            handle.write(passphrase + "\n")

    info = machine()
    started = time.time()
    log("machine: " + json.dumps(info))
    variants = []
    notes = []

    def run_case(case, what, build, runs):
        if case in CASES:
            log(f"case {case}: {what}")
            found = build()
            measure(found, runs)
            variants.extend(found)

    try:
        run_case("1", f"{STEPS} small schema migrations on an empty database", case1, RUNS)
        if "2" in CASES:
            log(f"case 2: a 12-step recreation of {ROWS} rows")
            found, size = case2()
            notes.append(f"case 2 database: {size:.0f} MiB before the migration")
            measure(found, RUNS)
            variants += found
            costs = verification_costs(ROWS)
            measure(costs, RUNS)
            variants += costs
            for rows in MEMORY_ROWS:
                if rows == ROWS:
                    continue
                log(f"case 2 at {rows} rows (peak memory)")
                found, size = case2(rows, memory_only=True)
                measure(found, 1)
                variants += found
        run_case("3", f"status with {HISTORY} applied migrations", case3, RUNS)
        run_case("4", f"a fleet of {FLEET} databases", case4, FLEET_RUNS)
        run_case("5", "format detection", case5, RUNS)
        run_case("7", "a small migration on a large database", case7, RUNS)
        run_case("6", f"start-up, {STARTS} processes per variant", case6, RUNS)
        run_case("8", f"rekey of a fleet of {REKEY_FLEET} databases", case8, FLEET_RUNS)
        run_case("9", f"status of a fleet of {STATUS_FLEET} databases", case9, FLEET_RUNS)
    except Failure as failure:
        sys.exit(f"bench: {failure}")

    elapsed = time.time() - started
    text = table(variants)
    checks = checks_table(variants)
    if checks:
        text += "\n\nAgainst issue 25's baseline, and against a shell doing every check migrate makes:\n\n" + checks
    memory = memory_table(variants)
    if memory:
        text += "\n\nPeak memory of case 2 as rows grow (one run per size beyond the main one):\n\n" + memory
    header = [f"configuration: {CONFIG}",
              f"runs per variant: {RUNS} for cases 1-3 and 5-7, {FLEET_RUNS} for case 4; total benchmark time {elapsed / 60:.1f} min",
              "load average at end: " + " ".join(open("/proc/loadavg").read().split()[:3])]
    header += [f"{key}: {value}" for key, value in info.items()] + notes
    report = "\n".join(header) + "\n\n" + text + "\n"
    print(report)
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, f"results-{CONFIG}.md"), "w") as handle:
        handle.write(report)
    with open(os.path.join(RESULTS, f"results-{CONFIG}.json"), "w") as handle:
        json.dump({"machine": info, "runs": RUNS, "fleet_runs": FLEET_RUNS, "notes": notes, "variants": [
            {"case": v.case, "variant": v.name, "walls": v.walls, "cpus": v.cpus, "peaks_kib": v.peaks,
             "kdf_real": v.kdf[0] if v.kdf else None, "kdf_fast": v.kdf[1] if v.kdf else None} for v in variants]}, handle, indent=1)
    log(f"bench: written {os.path.join(RESULTS, f'results-{CONFIG}.md')}")


if __name__ == "__main__":
    main()
