-- pg/schema-fingerprint.sql: the schema objects of aivet's schema (the current
-- one) as lines that do not depend on the schema's name or its owner's:
-- tables and their owners and grants, columns, constraints, indexes,
-- triggers, rules, policies, views, sequences, functions (their text, owner,
-- grants and whether they run as their owner), and the memberships among
-- aivet's roles. 'audit verify' compares them with db/pg/schema.expect, the
-- same lines of a database that aivet's migrations made (src/core/db-schema.c);
-- tests/pg/pg-schema.sh regenerates that file from the tree and fails when it
-- is stale. Every login that may read the database may run it.
WITH s AS (
	SELECT current_schema()::regnamespace AS ns, quote_ident(current_schema()) || '.' AS prefix,
	    (SELECT datdba FROM pg_database WHERE datname = current_database()) AS dba
), who AS (
	SELECT r.oid, CASE WHEN r.oid = s.dba THEN '(owner)' ELSE r.rolname END AS name FROM pg_roles r, s
), rel AS (
	SELECT c.* FROM pg_class c, s WHERE c.relnamespace = s.ns
), lines AS (
	SELECT format('relation %s kind %s owner %s rls %s acl %s', c.relname, c.relkind,
	    (SELECT name FROM who WHERE who.oid = c.relowner), c.relrowsecurity,
	    coalesce((SELECT string_agg(coalesce(g.name, 'PUBLIC') || ':' || x.privilege_type
	        || CASE WHEN x.is_grantable THEN '+' ELSE '' END, ',' ORDER BY coalesce(g.name, 'PUBLIC') COLLATE "C",
	        x.privilege_type COLLATE "C")
	        FROM aclexplode(c.relacl) x LEFT JOIN who g ON g.oid = x.grantee), '-')) AS line
	FROM rel c WHERE c.relkind IN ('r', 'v', 'm', 'S', 'p', 'f')
	UNION ALL
	SELECT format('column %s.%s %s%s%s%s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
	    CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
	    coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''),
	    coalesce(' identity ' || nullif(a.attidentity::text, ''), '') || coalesce(' acl ' || a.attacl::text, ''))
	FROM rel c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
	LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
	WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f')
	UNION ALL
	SELECT format('constraint %s.%s %s', c.relname, k.conname, pg_get_constraintdef(k.oid))
	FROM rel c JOIN pg_constraint k ON k.conrelid = c.oid
	UNION ALL
	SELECT format('index %s', replace(pg_get_indexdef(i.indexrelid), s.prefix, ''))
	FROM rel c JOIN pg_index i ON i.indrelid = c.oid, s
	UNION ALL
	SELECT format('trigger %s', replace(pg_get_triggerdef(t.oid), s.prefix, ''))
	FROM rel c JOIN pg_trigger t ON t.tgrelid = c.oid AND NOT t.tgisinternal, s
	UNION ALL
	SELECT format('rule %s', replace(pg_get_ruledef(r.oid), s.prefix, ''))
	FROM rel c JOIN pg_rewrite r ON r.ev_class = c.oid AND r.rulename <> '_RETURN', s
	UNION ALL
	SELECT format('policy %s.%s %s %s %s', c.relname, p.polname, p.polcmd, coalesce(pg_get_expr(p.polqual, p.polrelid), '-'),
	    coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '-'))
	FROM rel c JOIN pg_policy p ON p.polrelid = c.oid
	UNION ALL
	SELECT format('view %s %s', c.relname, replace(pg_get_viewdef(c.oid), s.prefix, ''))
	FROM rel c, s WHERE c.relkind IN ('v', 'm')
	UNION ALL
	SELECT format('function %s owner %s definer %s acl %s text %s', replace(p.oid::regprocedure::text, s.prefix, ''),
	    (SELECT name FROM who WHERE who.oid = p.proowner), p.prosecdef,
	    coalesce((SELECT string_agg(coalesce(g.name, 'PUBLIC') || ':' || x.privilege_type, ','
	        ORDER BY coalesce(g.name, 'PUBLIC') COLLATE "C", x.privilege_type COLLATE "C")
	        FROM aclexplode(p.proacl) x LEFT JOIN who g ON g.oid = x.grantee), 'default'),
	    md5(replace(replace(pg_get_functiondef(p.oid), s.prefix, ''),
	        'search_path TO ' || quote_literal(current_schema()), 'search_path TO (schema)')))
	FROM pg_proc p, s WHERE p.pronamespace = s.ns AND p.prokind IN ('f', 'p')
	UNION ALL
	SELECT format('role %s in %s', m.name, r.name)
	FROM pg_auth_members a JOIN who m ON m.oid = a.member JOIN who r ON r.oid = a.roleid
	WHERE m.name LIKE 'aivet\_%' AND r.name LIKE 'aivet\_%'
)
SELECT l FROM (SELECT regexp_replace(line, '[[:space:]]+', ' ', 'g') AS l FROM lines) AS folded ORDER BY l COLLATE "C"
