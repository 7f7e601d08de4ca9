-- 016-exchange-record.sql: nothing changes in SQLite's schema. On PostgreSQL
-- (pg/016-exchange-record.sql) a probe run's exchange is recorded with one
-- call to the server: its bodies, its evidence item, its exchange row and its
-- audit entry, each written by the function that writes it alone. The
-- number is kept in step with the server's migrations.
SELECT 1;
