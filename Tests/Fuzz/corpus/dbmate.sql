-- migrate:merging 0001_a 0002_b
-- migrate:up
CREATE VIEW active AS SELECT * FROM users WHERE active = 1;
ALTER TABLE users RENAME TO people;
-- migrate:down
ALTER TABLE people RENAME TO users;
DROP VIEW active;
