CREATE TEMP TRIGGER log_update AFTER UPDATE OF name ON users
WHEN new.name <> old.name
BEGIN
    INSERT INTO log (what) VALUES ('renamed ' || old.name);
    UPDATE counts SET n = CASE WHEN n IS NULL THEN 1 ELSE n + 1 END;
    SELECT RAISE(ROLLBACK, 'stop') WHERE new.name = 'END';
END;
EXPLAIN CREATE TRIGGER t2 BEFORE DELETE ON users BEGIN SELECT 1; END;
