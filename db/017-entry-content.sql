-- 017-entry-content.sql: an audit entry that seals a row holds the row's full
-- content (its object's parts as JSON, src/core/audit-content.h), so that
-- audit verify can replay the entries: a creating entry's details are
-- compared with the row it created, and each change of a row edited by name
-- with the fields the entry names. The entry hash does not cover the content:
-- its row_hash does, and verify recomputes it from the content. Entries
-- written before hold none: their rows are checked against their row hashes,
-- and verify says from which entry on the content is held.
ALTER TABLE audit_log ADD COLUMN content TEXT;
