-- Free-form metadata as a JSON column (JSON built in from SQLite 3.38), checked to be
-- valid JSON, and an index on one of its fields through the ->> operator.
-- migrate:up
ALTER TABLE notes ADD COLUMN metadata TEXT CHECK (metadata IS NULL OR json_valid(metadata));
CREATE INDEX notes_by_color ON notes (metadata ->> '$.color');

-- migrate:down
DROP INDEX notes_by_color;
ALTER TABLE notes DROP COLUMN metadata;
