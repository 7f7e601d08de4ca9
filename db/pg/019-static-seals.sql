-- pg/019-static-seals.sql: an audit entry's seal costs what the row it reads
-- costs. aivet_row_seal() built each part's query as text and ran it with
-- EXECUTE, so every entry parsed and planned a query of two expressions per
-- column (a probe exchange has 23), and each column's netstring went through
-- aivet_netstring_b(), an SQL function that the search path pinned on it
-- keeps from being inlined: a probe run on PostgreSQL spent about 0.8 ms a
-- sealed row there, most of the server's time for each exchange. Now:
--  - aivet_seal_generate() writes aivet_seal_rows(type, id), one plpgsql
--    function holding each part's query as static SQL, whose plans the
--    session keeps, rewritten by any statement that writes aivet_seal_part
--    (aivet refills it at each migration: db.c's seal_parts_fill), so it
--    is schema: db/pg/schema.expect holds its text and audit verify names a
--    change to it as it names any other function's;
--  - a column's netstring is written inline, and aivet_field_b() is called
--    only for text db-pg.c escaped (aivet_text_bytes());
--  - the small SQL functions called for every write are plpgsql, whose
--    expressions are planned once per session, where a pinned SQL function is
--    planned on every call.
-- The bytes hashed and the content are the same as before: only where the
-- work is done changes (tests/pg/pg-server-seals.sh compares them with the
-- client's).

-- A column's netstring as the row hash reads it: its text's bytes as
-- aivet_text_bytes() gives them.
CREATE FUNCTION aivet_field_b(t text) RETURNS bytea LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE b bytea := aivet_text_bytes(t);
BEGIN
	RETURN convert_to(length(b)::text || ':', 'UTF8') || b || '\x2c'::bytea;
END $$;

CREATE OR REPLACE FUNCTION aivet_netstring_b(b bytea) RETURNS bytea LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
	RETURN convert_to(length(b)::text || ':', 'UTF8') || b || '\x2c'::bytea;
END $$;

-- One part's query, keyed by p_id: its ord, table and lateness, its row
-- count, the netstrings of its rows (each column's, or '~' for NULL, in the
-- part's order) and its rows as JSON ({column: text or null}).
CREATE FUNCTION aivet_seal_select(p aivet_seal_part) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('SELECT %1$s, %2$L::text, %3$s, count(*), coalesce(string_agg((SELECT string_agg('
	    'CASE WHEN x IS NULL THEN ''\x7e''::bytea WHEN strpos(x, U&''\FDD0'') > 0 THEN aivet_field_b(x) '
	    'ELSE convert_to(octet_length(x)::text || '':'' || x || '','', ''UTF8'') END, ''''::bytea ORDER BY k) '
	    'FROM unnest(v) WITH ORDINALITY AS u(x, k)), ''''::bytea ORDER BY %4$s), ''''::bytea), '
	    'coalesce(json_agg(json_object(%5$L::text[], v) ORDER BY %4$s), ''[]''::json) '
	    'FROM %2$I, LATERAL (SELECT ARRAY[%6$s] AS v) AS a WHERE %7$I = p_id%8$s',
	    p.ord, p.tbl, p.late, p.order_by, array_agg(trim(c) ORDER BY k),
	    string_agg(format('%I::text', trim(c)), ', ' ORDER BY k), p.key,
	    CASE WHEN p.cond IS NULL THEN '' ELSE ' AND ' || p.cond END)
	FROM unnest(string_to_array(p.cols, ',')) WITH ORDINALITY AS u(c, k)
$$;

-- (Re)writes aivet_seal_rows() from aivet_seal_part: for each sealed type,
-- its parts' queries in ord, as static SQL. Only the owner can, as only the
-- owner fills aivet_seal_part.
CREATE FUNCTION aivet_seal_generate() RETURNS void LANGUAGE plpgsql AS $g$
DECLARE
	body text := '';
	t text;
	q text;
BEGIN
	FOR t IN SELECT object_type FROM aivet_seal_part GROUP BY object_type ORDER BY min(ord) LOOP
		SELECT string_agg(format(E'\t\tRETURN QUERY %s;\n', aivet_seal_select(p)), '' ORDER BY p.ord)
		    INTO q FROM aivet_seal_part p WHERE p.object_type = t;
		body := body || format(E'\t%s p_type = %L THEN\n%s', CASE WHEN body = '' THEN 'IF' ELSE 'ELSIF' END,
		    t, q);
	END LOOP;
	IF body <> '' THEN
		body := body || E'\tEND IF;\n';
	END IF;
	EXECUTE format($f$CREATE OR REPLACE FUNCTION aivet_seal_rows(p_type text, p_id bigint)
RETURNS TABLE (o_ord integer, o_tbl text, o_late integer, o_n bigint, o_part bytea, o_rows json)
LANGUAGE plpgsql STABLE SET search_path = %I, pg_temp AS $b$
#variable_conflict use_column
BEGIN
%sEND $b$$f$, current_schema(), body);
	REVOKE ALL ON FUNCTION aivet_seal_rows(text, bigint) FROM PUBLIC;
	GRANT EXECUTE ON FUNCTION aivet_seal_rows(text, bigint) TO aivet_auditor;
END $g$;
SELECT aivet_seal_generate();

-- Any statement that writes the parts rewrites the function: aivet's refill
-- at each migration (one DELETE, one INSERT), or the owner's own SQL, which
-- audit verify then names as a change to aivet_seal_rows().
CREATE FUNCTION aivet_seal_part_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM aivet_seal_generate();
	RETURN NULL;
END $$;
CREATE TRIGGER seal_part_written AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON aivet_seal_part
	FOR EACH STATEMENT EXECUTE FUNCTION aivet_seal_part_written();

-- The row hash and the full content of an object (017's), from the parts
-- aivet_seal_rows() reads: NULLs for a type that is not sealed.
CREATE OR REPLACE FUNCTION aivet_row_seal(p_type text, p_id bigint, OUT rh text, OUT content text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
	r record;
	acc bytea := aivet_netstring_b(convert_to(p_type, 'UTF8')) || aivet_netstring_b(convert_to(p_id::text, 'UTF8'));
	parts json[] := '{}';
	sealed boolean := false;
BEGIN
	FOR r IN SELECT * FROM aivet_seal_rows(p_type, p_id) ORDER BY o_ord LOOP
		sealed := true;
		IF r.o_late = 0 OR r.o_n > 0 THEN
			acc := acc || aivet_netstring_b(convert_to(r.o_tbl, 'UTF8'));
		END IF;
		acc := acc || r.o_part;
		parts := parts || json_build_object('table', r.o_tbl, 'rows', r.o_rows);
	END LOOP;
	IF sealed THEN
		rh := encode(sha256(acc), 'hex');
		content := array_to_json(parts)::text;
	END IF;
END $$;

-- What the generated function replaces: 017's per-part query text, and
-- 012's row hash, which nothing has called since 017.
DROP TRIGGER seal_part_query ON aivet_seal_part;
DROP FUNCTION aivet_seal_part_query();
DROP FUNCTION aivet_seal_query(aivet_seal_part);
ALTER TABLE aivet_seal_part DROP COLUMN query;
DROP FUNCTION aivet_row_hash(text, bigint);

-- The helpers every write calls, as plpgsql (same bodies).
CREATE OR REPLACE FUNCTION aivet_is_owner() RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN pg_has_role(session_user, (SELECT datdba FROM pg_database WHERE datname = current_database()),
	    'MEMBER');
END $$;
CREATE OR REPLACE FUNCTION aivet_restoring() RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN coalesce(current_setting('aivet.restore', true), '') = 'on' AND aivet_is_owner();
END $$;
CREATE OR REPLACE FUNCTION aivet_writing() RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN coalesce(current_setting('aivet.writing', true), '') = 'on';
END $$;
CREATE OR REPLACE FUNCTION aivet_op_action(action text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN CASE WHEN action IN ('answer.set', 'answer.clear', 'answer.note', 'answer.import') THEN 'answer'
	    WHEN action IN ('vendor.add', 'vendor.edit', 'vendor.archive') THEN 'vendor.write'
	    WHEN action IN ('endpoint.add', 'endpoint.edit', 'endpoint.archive') THEN 'endpoint.write'
	    ELSE action END;
END $$;
CREATE OR REPLACE FUNCTION aivet_op_bound_017(action text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN aivet_op_action(action) IN ('assessment.start', 'assessment.submit', 'assessment.approve',
	    'assessment.return', 'assessment.reopen', 'answer', 'answer.evidence', 'evidence.add',
	    'probe.exchange', 'questionnaire.load', 'incident.open', 'incident.status', 'incident.edit',
	    'incident.entry', 'incident.link', 'probe.start', 'probe.calibrate', 'probe.finish',
	    'probe.interrupted', 'probe.result', 'probe.finding', 'incident.task.add',
	    'incident.task.done', 'report.export', 'blob.seal', 'vendor.write', 'endpoint.write',
	    'advisory.import', 'probe.queue', 'probe.requeue', 'schedule.add', 'schedule.remove');
END $$;
CREATE OR REPLACE FUNCTION aivet_op_bound(action text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN action IN ('endpoint.confirm', 'key.register', 'db.grant', 'db.revoke', 'db.timezone',
	    'probe.limit') OR aivet_op_bound_017(action);
END $$;
CREATE OR REPLACE FUNCTION aivet_op(action text, object_type text, object_id bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
#variable_conflict use_column
BEGIN
	INSERT INTO aivet_op (tx, action, object_type, object_id) VALUES (txid_current(), $1, $2, $3)
	ON CONFLICT (tx, action, object_type, object_id) DO UPDATE SET audited = false;
END $$;
CREATE OR REPLACE FUNCTION aivet_edit_cols(p_type text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN CASE p_type WHEN 'vendor' THEN ARRAY['name', 'criticality', 'contact', 'notes']
	    WHEN 'endpoint' THEN ARRAY['name', 'api', 'url', 'model', 'context_tokens', 'allow_insecure_http',
	        'options'] END;
END $$;
CREATE OR REPLACE FUNCTION aivet_json_path(path text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
	RETURN coalesce(array_remove(regexp_split_to_array(
	    regexp_replace(regexp_replace(path, '^\$\.?', ''), '\[([0-9]+)\]', '.\1', 'g'), '\.'), ''),
	    '{}');
END $$;
CREATE OR REPLACE FUNCTION aivet_netstring(s text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
	RETURN octet_length(convert_to(s, 'UTF8')) || ':' || s || ',';
END $$;

-- Stored content is compressed with lz4 where the server has it: pglz, the
-- default, cost a probe run's exchanges about a third of the time their
-- content took to store (8 ms of 25 a run), lz4 a tenth of that. A server
-- built without lz4 keeps pglz; the bytes read back are the same either way.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'
	    AND 'lz4' = ANY (enumvals)) THEN
		ALTER TABLE blob ALTER COLUMN data SET COMPRESSION lz4;
	END IF;
END $$;

CALL pin_aivet_functions();
