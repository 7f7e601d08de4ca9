-- 005-roles.sql: on PostgreSQL this migration creates the team's roles
-- (db/pg/005-roles.sql). An SQLite file has no logins or roles: whoever can
-- write the file can do anything. Kept so that both backends count the same
-- schema versions.
SELECT 1;
