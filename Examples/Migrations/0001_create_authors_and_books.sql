-- The first release: authors and their books. A book's genre is free text.
-- migrate:up
CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE books (
    id INTEGER PRIMARY KEY,
    authorId INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    genre TEXT
);

-- migrate:down
DROP TABLE books;
DROP TABLE authors;
