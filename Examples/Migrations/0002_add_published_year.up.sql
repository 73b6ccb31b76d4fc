-- Release 2 records when a book was published. Nullable: existing rows have no year.
ALTER TABLE books ADD COLUMN publishedYear INTEGER;
