-- 010-severity: the severity order comes from aivet's one list (include/aivet/severity.h)
-- rather than a second copy here. aivet fills aivet_severity from it in the
-- transaction of each migration it applies (src/core/db.c), this one included, and
-- severity_rank() reads it: -1 for a name the list does not hold, as in C.
CREATE TABLE aivet_severity (
	name text PRIMARY KEY,
	rank integer NOT NULL UNIQUE
);

CREATE OR REPLACE FUNCTION severity_rank(name text) RETURNS integer LANGUAGE sql STABLE AS $$
	SELECT coalesce((SELECT s.rank FROM aivet_severity s WHERE s.name = $1), -1)
$$;
