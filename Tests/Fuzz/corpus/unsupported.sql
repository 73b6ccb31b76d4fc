INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET b = excluded.b RETURNING *;
CREATE TABLE g (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) STORED) STRICT;
SELECT row_number() OVER (ORDER BY a), count(*) FILTER (WHERE a > 1), iif(a, 1, 2),
       json_extract(doc, '$.a'), unixepoch() FROM t ORDER BY a NULLS LAST;
UPDATE t SET a = s.a FROM s WHERE s.id = t.id;
SELECT * FROM pragma_table_info('t'), sqlite_schema WHERE a IS NOT DISTINCT FROM b;
