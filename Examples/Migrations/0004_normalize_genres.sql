-- Genres move from free text on every book into their own table, so they can be
-- renamed in one place. A data migration: every book keeps its genre, now by id.
-- The books table is recreated (SQLite cannot change a column's meaning in place),
-- the 12-step way: new table, copy, drop, rename, recreate indexes.
-- migrate:up
CREATE TABLE genres (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
INSERT INTO genres (name)
    SELECT DISTINCT trim(genre) FROM books
    WHERE genre IS NOT NULL AND trim(genre) <> ''
    ORDER BY trim(genre);

CREATE TABLE books_new (
    id INTEGER PRIMARY KEY,
    authorId INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    genreId INTEGER REFERENCES genres(id) ON DELETE SET NULL,
    publishedYear INTEGER
);
INSERT INTO books_new (id, authorId, title, genreId, publishedYear)
    SELECT books.id, books.authorId, books.title, genres.id, books.publishedYear
    FROM books LEFT JOIN genres ON genres.name = trim(books.genre);
DROP TABLE books;
ALTER TABLE books_new RENAME TO books;
CREATE INDEX books_authorId ON books(authorId);
CREATE INDEX books_genreId ON books(genreId);

-- migrate:down
CREATE TABLE books_old (
    id INTEGER PRIMARY KEY,
    authorId INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    genre TEXT,
    publishedYear INTEGER
);
INSERT INTO books_old (id, authorId, title, genre, publishedYear)
    SELECT books.id, books.authorId, books.title, genres.name, books.publishedYear
    FROM books LEFT JOIN genres ON genres.id = books.genreId;
DROP TABLE books;
ALTER TABLE books_old RENAME TO books;
CREATE INDEX books_authorId ON books(authorId);
DROP TABLE genres;
