-- 007-credential-org.sql: the organisation (account) a credential belongs to
-- (see db/007-credential-org.sql); the same column for PostgreSQL.
ALTER TABLE credential ADD COLUMN org text CHECK (org IS NULL OR length(org) BETWEEN 1 AND 64);
