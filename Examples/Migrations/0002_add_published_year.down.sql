-- SQLite 3.15 (SQLCipher 3.4.1) has no DROP COLUMN: recreate the table without it,
-- following sqlite.org's 12-step procedure (the runner switches foreign keys off).
CREATE TABLE books_new (
    id INTEGER PRIMARY KEY,
    authorId INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    genre TEXT
);
INSERT INTO books_new (id, authorId, title, genre)
    SELECT id, authorId, title, genre FROM books;
DROP TABLE books;
ALTER TABLE books_new RENAME TO books;
