-- 018-no-change.sql: nothing changes in SQLite's schema. On PostgreSQL
-- (pg/018-no-change.sql) an action that changes no row, a confirmation of
-- where an endpoint's secrets may go, is recorded through a function that
-- checks the endpoint exists and the login wrote the references it confirms;
-- on SQLite endpoint_confirm() checks the same before its entry. The number
-- is kept in step with the server's migrations.
SELECT 1;
