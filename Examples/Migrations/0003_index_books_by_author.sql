-- Listing an author's books got slow: index the foreign key.
-- migrate:up
CREATE INDEX books_authorId ON books(authorId);

-- migrate:down
DROP INDEX books_authorId;
