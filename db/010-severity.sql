-- 010-severity: the severity order is written once, in include/aivet/severity.h. On
-- PostgreSQL this version adds the table aivet fills from it (db/pg/009);
-- SQLite's severity_rank() is a function aivet registers on every connection
-- from the same list (src/core/db-sqlite.c), so there is nothing to store here.
SELECT 1;
