-- Full-text search with FTS5 over the notes, as an external-content index that three
-- triggers keep in sync with the table (sqlite.org/fts5.html, section 4.4.3).
-- migrate:up
CREATE VIRTUAL TABLE notes_search USING fts5(title, body, content = 'notes', content_rowid = 'id');

CREATE TRIGGER notes_search_insert AFTER INSERT ON notes BEGIN
    INSERT INTO notes_search (rowid, title, body) VALUES (new.id, new.title, new.body);
END;

CREATE TRIGGER notes_search_delete AFTER DELETE ON notes BEGIN
    INSERT INTO notes_search (notes_search, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;

CREATE TRIGGER notes_search_update AFTER UPDATE OF title, body ON notes BEGIN
    INSERT INTO notes_search (notes_search, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO notes_search (rowid, title, body) VALUES (new.id, new.title, new.body);
END;

-- Notes written before this release get indexed too.
INSERT INTO notes_search (notes_search) VALUES ('rebuild');

-- migrate:down
DROP TRIGGER notes_search_update;
DROP TRIGGER notes_search_delete;
DROP TRIGGER notes_search_insert;
DROP TABLE notes_search;
