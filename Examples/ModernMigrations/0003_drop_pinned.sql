-- Pinning moved to the app's settings: the column goes with DROP COLUMN (SQLite 3.35+),
-- no 12-step table rebuild needed.
-- migrate:up
ALTER TABLE notes DROP COLUMN pinned;

-- migrate:down
ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1));
