"""Generates the benchmark workloads: migration folders (dbmate form, `-- migrate:up`
only, so the `sqlcipher` shell can `.read` the very same files) and the shell scripts
that run them one transaction per file.

Nothing here touches a database; bench.py runs what these functions write.
"""

import hashlib
import os


def _write(folder, name, sql):
    with open(os.path.join(folder, name + ".sql"), "w", encoding="utf-8") as handle:
        handle.write("-- migrate:up\n" + sql.strip() + "\n")
    return name


# --- case 1: many small schema migrations -----------------------------------------


def small_schema_migrations(folder, count):
    """`count` small schema steps on an empty database, cycling through what an app's
    history is made of: a new table (with a foreign key to the previous one), a new
    column and an index, a view or a trigger. Returns the identifiers in order."""
    os.makedirs(folder, exist_ok=True)
    names = []
    table = 0
    for i in range(1, count + 1):
        kind = (i - 1) % 3
        if kind == 0:
            table += 1
            parent = f",\n    parent_id INTEGER REFERENCES t{table - 1}(id) ON DELETE CASCADE" if table > 1 else ""
            sql = (f"CREATE TABLE t{table} (\n    id INTEGER PRIMARY KEY,\n    name TEXT NOT NULL,\n"
                   f"    created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP{parent}\n);")
            name = f"{i:05d}_create_t{table}"
        elif kind == 1:
            sql = (f"ALTER TABLE t{table} ADD COLUMN note TEXT;\n"
                   f"CREATE INDEX t{table}_name ON t{table}(name);")
            name = f"{i:05d}_t{table}_note_and_index"
        elif table % 2 == 0:
            sql = (f"CREATE VIEW t{table}_named AS\n    SELECT id, name FROM t{table} WHERE name <> '';")
            name = f"{i:05d}_t{table}_view"
        else:
            sql = (f"CREATE TRIGGER t{table}_touch AFTER UPDATE OF name ON t{table}\n"
                   f"BEGIN\n    UPDATE t{table} SET note = 'renamed' WHERE id = NEW.id;\nEND;")
            name = f"{i:05d}_t{table}_trigger"
        names.append(_write(folder, name, sql))
    return names


# --- case 2: a 12-step table recreation over many rows ----------------------------


def data_base_migrations(folder, rows):
    """The database before the data migration: users and `rows` events (with a
    foreign key, an index and a view), applied once at setup."""
    os.makedirs(folder, exist_ok=True)
    names = [
        _write(folder, "0001_schema", """
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    payload TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX events_user ON events(user_id);
CREATE VIEW user_event_counts AS
    SELECT user_id, count(*) AS events FROM events GROUP BY user_id;
"""),
        _write(folder, "0002_fill", f"""
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000)
INSERT INTO users (id, name) SELECT x, 'user ' || x FROM n;
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < {rows})
INSERT INTO events (id, user_id, kind, payload, created_at)
SELECT x, 1 + x % 1000,
       CASE x % 4 WHEN 0 THEN 'open' WHEN 1 THEN 'edit' WHEN 2 THEN 'share' ELSE 'close' END,
       'payload of event ' || x || ' ' || substr('abcdefghijklmnopqrstuvwxyz', 1 + x % 26),
       datetime(1700000000 + x * 7, 'unixepoch')
FROM n;
"""),
    ]
    return names


RECREATE_EVENTS = """
-- The 12-step table change (sqlite.org lang_altertable.html, section 7). Steps 1-2
-- (foreign_keys OFF, BEGIN), 10 (foreign_key_check) and 11-12 (COMMIT, foreign_keys
-- ON) belong to whoever runs the file: MigrationKit's runner, or the shell script.
-- 3: the view and the index on events are recreated below.
-- 4-5: the new shape; created_at becomes Unix seconds, kind gets a CHECK, size is new.
CREATE TABLE new_events (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('open', 'edit', 'share', 'close')),
    payload TEXT,
    size INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
INSERT INTO new_events (id, user_id, kind, payload, size, created_at)
    SELECT id, user_id, kind, payload, coalesce(length(payload), 0), CAST(strftime('%s', created_at) AS INTEGER)
    FROM events;
-- 6-7
DROP VIEW user_event_counts;
DROP TABLE events;
ALTER TABLE new_events RENAME TO events;
-- 8-9
CREATE INDEX events_user ON events(user_id);
CREATE VIEW user_event_counts AS
    SELECT user_id, count(*) AS events FROM events GROUP BY user_id;
"""


def data_migration(folder):
    """The measured data migration: the 12-step recreation of `events`."""
    return _write(folder, "0003_recreate_events", RECREATE_EVENTS)


# --- case 3: a long history ---------------------------------------------------------


def long_history(folder, count):
    """`count` tiny migrations: mostly settings rows, a new table every 50th step."""
    os.makedirs(folder, exist_ok=True)
    names = [_write(folder, f"{1:05d}_settings", "CREATE TABLE settings (key TEXT PRIMARY KEY, value INTEGER NOT NULL);")]
    for i in range(2, count + 1):
        if i % 50 == 0:
            sql = f"CREATE TABLE feature_{i} (id INTEGER PRIMARY KEY, enabled INTEGER NOT NULL DEFAULT 0);"
            names.append(_write(folder, f"{i:05d}_feature_{i}", sql))
        else:
            sql = f"INSERT OR REPLACE INTO settings (key, value) VALUES ('setting_{i % 500}', {i});"
            names.append(_write(folder, f"{i:05d}_setting_{i}", sql))
    return names


# --- case 4: a per-user fleet -------------------------------------------------------


FLEET_V1 = [
    ("0001_notes", """
CREATE TABLE notebooks (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    notebook_id INTEGER NOT NULL REFERENCES notebooks(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    body TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL
);
CREATE INDEX notes_notebook ON notes(notebook_id);
"""),
    ("0002_tags", """
CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE note_tags (
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    PRIMARY KEY (note_id, tag_id)
);
"""),
    ("0003_seed", """
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5)
INSERT INTO notebooks (id, title) SELECT x, 'notebook ' || x FROM n;
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 200)
INSERT INTO notes (id, notebook_id, title, body, updated_at)
SELECT x, 1 + x % 5, 'note ' || x, 'body of note ' || x, datetime(1700000000 + x * 60, 'unixepoch') FROM n;
INSERT INTO tags (id, name) VALUES (1, 'work'), (2, 'home'), (3, 'later');
INSERT INTO note_tags (note_id, tag_id) SELECT id, 1 + id % 3 FROM notes;
"""),
]

FLEET_V2 = [
    ("0004_note_pinned", """
ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
CREATE INDEX notes_pinned ON notes(pinned) WHERE pinned = 1;
"""),
    ("0005_attachments", """
CREATE TABLE attachments (
    id INTEGER PRIMARY KEY,
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    size INTEGER NOT NULL
);
CREATE INDEX attachments_note ON attachments(note_id);
"""),
    ("0006_notes_updated_at_integer", """
-- 12-step recreation of notes (a parent of note_tags and attachments).
CREATE TABLE new_notes (
    id INTEGER PRIMARY KEY,
    notebook_id INTEGER NOT NULL REFERENCES notebooks(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    body TEXT NOT NULL DEFAULT '',
    pinned INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
);
INSERT INTO new_notes (id, notebook_id, title, body, pinned, updated_at)
    SELECT id, notebook_id, title, body, pinned, CAST(strftime('%s', updated_at) AS INTEGER) FROM notes;
DROP TABLE notes;
ALTER TABLE new_notes RENAME TO notes;
CREATE INDEX notes_notebook ON notes(notebook_id);
CREATE INDEX notes_pinned ON notes(pinned) WHERE pinned = 1;
"""),
    ("0007_note_search_words", """
CREATE TABLE note_words (note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE, word TEXT NOT NULL);
INSERT INTO note_words (note_id, word) SELECT id, lower(title) FROM notes;
CREATE INDEX note_words_word ON note_words(word);
"""),
    ("0008_settings", """
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO settings (key, value) VALUES ('theme', 'light'), ('sync', 'on');
"""),
]


def fleet_migrations(v1_folder, v2_folder):
    """v1: what every user's database already has; v2: v1 plus the update's steps."""
    os.makedirs(v1_folder, exist_ok=True)
    os.makedirs(v2_folder, exist_ok=True)
    for name, sql in FLEET_V1:
        _write(v1_folder, name, sql)
        _write(v2_folder, name, sql)
    return [_write(v2_folder, name, sql) for name, sql in FLEET_V2]


# --- the shell side -------------------------------------------------------------------

LEDGER = "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);"
HISTORY = ("CREATE TABLE IF NOT EXISTS migrationkit_history (identifier TEXT NOT NULL PRIMARY KEY, "
           "checksum TEXT, applied_at TEXT NOT NULL, duration_ms INTEGER NOT NULL);")

# What each shell variant adds around the same files (see README.md):
#   min     BEGIN IMMEDIATE; <file>; ledger row; COMMIT
#   12step  + foreign_key_check before each COMMIT (step 10 of sqlite.org's procedure;
#           the shell's foreign_keys is already OFF, SQLite's default)
#   issue   as min, then quick_check(1) and foreign_key_check after the run: issue 25's
#           baseline ("one transaction per migration plus the ledger row, then
#           quick_check and foreign_key_check"), which its targets are written against
#   full    + MigrationKit's history row per step, and after the run quick_check(1)
#           and foreign_key_check: the same work `migrationkit migrate` does, written
#           as a shell would (a history row in every step's transaction)
#   memtemp as min, with `PRAGMA temp_store = MEMORY` first: SQLite's temporary files
#           (a sort too large for the cache, CREATE INDEX) kept in memory, as
#           libsqlcipher is built (SQLITE_TEMP_STORE=2: SQLCipher does not encrypt
#           temporary files). Debian 12's 4.6.1 shell is built with TEMP_STORE=1 and
#           writes them, unencrypted, to /var/tmp; its 3.4.1 shell keeps them in memory.
SHELL_VARIANTS = ("min", "12step", "issue", "full")
# memtemp: temporary files in memory, as the library keeps them (case 2's memory rows).
# fulltrunc: "full" committing as `migrate` does, by truncating the rollback journal
# (journal_mode = TRUNCATE for the run, back to DELETE at the end; cases 1 and 2).
EXTRA_SHELL_VARIANTS = ("memtemp", "fulltrunc")


def shell_script(path, folder, identifiers, variant):
    """A script the shell runs after `PRAGMA key` (sent on its standard input, so no
    key is ever written into a generated file): one transaction per migration file."""
    assert variant in SHELL_VARIANTS + EXTRA_SHELL_VARIANTS
    lines = {"memtemp": ["PRAGMA temp_store = MEMORY;"], "fulltrunc": ["PRAGMA journal_mode = TRUNCATE;"]}.get(variant, [])
    checked = variant in ("full", "fulltrunc")
    for identifier in identifiers:
        file_path = os.path.join(os.path.abspath(folder), identifier + ".sql")
        lines.append("BEGIN IMMEDIATE;")
        lines.append(f".read {file_path}")
        lines.append(LEDGER)
        lines.append(f"INSERT INTO grdb_migrations (identifier) VALUES ('{identifier}');")
        if checked:
            with open(file_path, "rb") as handle:
                checksum = hashlib.sha256(handle.read()).hexdigest()
            lines.append(HISTORY)
            lines.append("INSERT OR REPLACE INTO migrationkit_history (identifier, checksum, applied_at, duration_ms) "
                         f"VALUES ('{identifier}', '{checksum}', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 0);")
        if variant == "12step" or checked:
            lines.append("PRAGMA foreign_key_check;")
        lines.append("COMMIT;")
    if checked or variant == "issue":
        lines.append("PRAGMA quick_check(1);")
        lines.append("PRAGMA foreign_key_check;")
    if variant == "fulltrunc":
        lines.append("PRAGMA journal_mode = DELETE;")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def small_change(folder):
    """A small migration on the large database of case 2: a new table of tags, and a
    column on the thousand-row `users` table; `events` is left alone."""
    return _write(folder, "0003_tags", """
CREATE TABLE tags (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL);
INSERT INTO tags (user_id, name) VALUES (1, 'first'), (2, 'second');
ALTER TABLE users ADD COLUMN nickname TEXT;
""")
