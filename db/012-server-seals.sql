-- 012-server-seals: on PostgreSQL the server now computes every audit entry's
-- hashes itself (db/pg/012-server-seals.sql). An SQLite file has no server: the
-- rules audit verify applies to both (an evidentiary row sealed once, every
-- entry about a sealed type carrying its row hash, the schema compared with
-- what these migrations create) need nothing stored here.
SELECT 1;
