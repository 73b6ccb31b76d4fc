-- migrate:up
SELECT 1 /* never closed ;
-- migrate:down
