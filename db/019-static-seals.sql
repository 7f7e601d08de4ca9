-- 019-static-seals.sql: nothing changes in SQLite's schema. On PostgreSQL
-- (pg/019-static-seals.sql) the server's seal of an audit entry reads each
-- part with static SQL the session plans once. The number is kept in step
-- with the server's migrations.
SELECT 1;
