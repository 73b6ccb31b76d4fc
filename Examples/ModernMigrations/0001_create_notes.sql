-- A notes app as a modern SQLite app writes it: a STRICT table (SQLite 3.37+), where a
-- value of the wrong type is refused instead of stored.
-- migrate:up
CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    body TEXT NOT NULL DEFAULT '',
    pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1))
) STRICT;

-- migrate:down
DROP TABLE notes;
