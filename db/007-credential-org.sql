-- 007-credential-org.sql: the organisation (account) a credential belongs to.
-- Keys of one organisation may share what a vendor scopes per organisation
-- (OpenAI documents its prompt cache so); the probes name the level a cache
-- is shared at from keys of one organisation and of another. NULL: not said,
-- each credential then counts as an organisation of its own.
ALTER TABLE credential ADD COLUMN org TEXT CHECK (org IS NULL OR length(org) BETWEEN 1 AND 64);
