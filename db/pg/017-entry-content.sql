-- pg/017-entry-content.sql: an audit entry that seals a row holds the row's
-- full content (src/core/audit-content.h), built here, by the function that
-- appends the entry, from the rows as they are in this transaction, never
-- from what the caller passed. aivet_row_seal() reads each part of the seal
-- once for both the row hash (as aivet_row_hash() computes it) and the
-- content, so an entry costs what it did. audit verify recomputes the row
-- hash from the content; the entry hash covers the row hash. Entries written
-- before hold none.
--
-- An entry about a vendor or an endpoint that changes it must name each field
-- it changed: the new content is compared with the content of the object's
-- previous entry, and a field that differs and that the details do not name
-- was changed behind aivet's back; the entry, which would re-seal it, is
-- refused (audit.c's append_edit_check() on SQLite). audit verify compares
-- the values too.

ALTER TABLE audit_log ADD COLUMN content text;

-- Each part's query for aivet_row_seal(), written once when aivet fills
-- aivet_seal_part (each migration refills it from seal-parts.h) rather than on
-- every entry: the netstrings of the row hash (as aivet_row_hash() reads the
-- part) and the rows as JSON, in one read of the part's rows.
ALTER TABLE aivet_seal_part ADD COLUMN query text;

CREATE FUNCTION aivet_seal_query(p aivet_seal_part) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('SELECT count(*), coalesce(string_agg(%s, ''''::bytea ORDER BY %s), ''''::bytea), '
	    'coalesce(json_agg(json_build_object(%s) ORDER BY %s), ''[]''::json) FROM %I WHERE %I = $1%s',
	    string_agg(format('CASE WHEN %1$I IS NULL THEN convert_to(%2$L, ''UTF8'') ELSE aivet_netstring_b(aivet_text_bytes(%1$I::text)) END',
	        trim(c), '~'), ' || ' ORDER BY k),
	    p.order_by, string_agg(format('%1$L, %1$I::text', trim(c)), ', ' ORDER BY k),
	    p.order_by, p.tbl, p.key, CASE WHEN p.cond IS NULL THEN '' ELSE ' AND ' || p.cond END)
	FROM unnest(string_to_array(p.cols, ',')) WITH ORDINALITY AS u(c, k)
$$;

CREATE FUNCTION aivet_seal_part_query() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.query := aivet_seal_query(NEW);
	RETURN NEW;
END $$;
CREATE TRIGGER seal_part_query BEFORE INSERT OR UPDATE ON aivet_seal_part
	FOR EACH ROW EXECUTE FUNCTION aivet_seal_part_query();
UPDATE aivet_seal_part SET query = NULL;

-- The row hash and the full content of an object: NULLs for a type that is
-- not sealed. Content: [{"table": T, "rows": [{column: text or null}, ...]}, ...].
CREATE FUNCTION aivet_row_seal(p_type text, p_id bigint, OUT rh text, OUT content text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
	p aivet_seal_part;
	acc bytea := aivet_netstring_b(convert_to(p_type, 'UTF8')) || aivet_netstring_b(convert_to(p_id::text, 'UTF8'));
	part bytea;
	rows json;
	parts json[] := '{}';
	n bigint;
	sealed boolean := false;
BEGIN
	FOR p IN SELECT * FROM aivet_seal_part WHERE object_type = p_type ORDER BY ord LOOP
		sealed := true;
		EXECUTE coalesce(p.query, aivet_seal_query(p)) INTO n, part, rows USING p_id;
		IF p.late = 0 OR n > 0 THEN
			acc := acc || aivet_netstring_b(convert_to(p.tbl, 'UTF8'));
		END IF;
		acc := acc || part;
		parts := parts || json_build_object('table', p.tbl, 'rows', rows);
	END LOOP;
	IF sealed THEN
		rh := encode(sha256(acc), 'hex');
		content := array_to_json(parts)::text;
	END IF;
END $$;

-- The fields an entry about a vendor or an endpoint names when it changes them
-- (audit.c's edit_kinds[]).
CREATE FUNCTION aivet_edit_cols(p_type text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE p_type WHEN 'vendor' THEN ARRAY['name', 'criticality', 'contact', 'notes']
	    WHEN 'endpoint' THEN ARRAY['name', 'api', 'url', 'model', 'context_tokens', 'allow_insecure_http',
	        'options'] END
$$;

-- Refuses an entry that would re-seal a vendor or an endpoint changed in a
-- field its details do not name (see above; audit-content.c's
-- content_unnamed_change() is the same rule).
CREATE FUNCTION aivet_edit_check(p_action text, p_type text, p_id bigint, p_details text, p_content text)
RETURNS void LANGUAGE plpgsql STABLE AS $$
DECLARE
	cols text[] := aivet_edit_cols(p_type);
	pseq bigint;
	prev json;
	was json;
	now json := p_content::json -> 0 -> 'rows' -> 0;
	d jsonb := p_details::jsonb;
	c text;
	a jsonb;
	b jsonb;
BEGIN
	IF cols IS NULL OR p_action IN ('vendor.add', 'endpoint.add') OR now IS NULL THEN
		RETURN;
	END IF;
	SELECT l.seq, l.content::json INTO pseq, prev FROM audit_log l
	    WHERE l.object_type = p_type AND l.object_id = p_id ORDER BY l.seq DESC LIMIT 1;
	was := prev -> 0 -> 'rows' -> 0;
	IF was IS NULL THEN
		RETURN;
	END IF;
	-- The fields an edit names, then the columns none names, which only the
	-- time of the change and the archiving move.
	FOR c IN SELECT k FROM json_object_keys(now) AS k LOOP
		IF (was ->> c) IS DISTINCT FROM (now ->> c) AND (CASE WHEN c = ANY (cols) THEN NOT (d ? c)
		    ELSE c NOT IN ('updated_at', 'status') END) THEN
			PERFORM aivet_refused(format('%s %s''s %s is not what audit entry %s recorded, and this %s '
			    'does not name it: it was changed behind aivet''s back; not re-sealed', p_type, p_id, c,
			    pseq, p_action));
		END IF;
	END LOOP;
	-- An endpoint's child rows: each credential added, changed or removed named
	-- by its label (credentials, credential_orgs, credentials_removed), its
	-- engine nodes by engine.
	FOR i IN 1 .. json_array_length(p_content::json) - 1 LOOP
		c := p_content::json -> i ->> 'table';
		a := (prev -> i -> 'rows')::jsonb;
		b := (p_content::json -> i -> 'rows')::jsonb;
		CONTINUE WHEN a IS NULL OR b IS NULL OR a = b;
		IF (c = 'engine_node' AND NOT (d ? 'engine')) OR (c = 'credential' AND EXISTS (
		    SELECT 1 FROM (SELECT r ->> 'label' AS l, r AS ra FROM jsonb_array_elements(a) r) x
		    FULL JOIN (SELECT r ->> 'label' AS l, r AS rb FROM jsonb_array_elements(b) r) y USING (l)
		    WHERE x.ra IS DISTINCT FROM y.rb AND NOT (coalesce(d -> 'credentials' ? l, false)
		        OR coalesce(d -> 'credential_orgs' ? l, false) OR coalesce(d -> 'credentials_removed' ? l, false)))) THEN
			PERFORM aivet_refused(format('%s %s''s %s is not what audit entry %s recorded, and this %s '
			    'does not name it: it was changed behind aivet''s back; not re-sealed', p_type, p_id, c,
			    pseq, p_action));
		END IF;
	END LOOP;
END $$;

-- Appends an entry as audit.c encodes it (aivet(1)), every hash and the
-- content computed here, in the login's name. Returns its seq. As 012's, with
-- the content and the check above.
CREATE OR REPLACE FUNCTION aivet_audit_append(p_at text, p_action text, p_object_type text, p_object_id bigint,
    p_details text) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	me text := session_user;
	s bigint;
	prev text;
	rh text;
	body text;
	h text;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'writing');
	IF aivet_is_owner() AND aivet_op_action(p_action) IN ('vendor.write', 'endpoint.write') THEN
		NULL;   -- the owner's own writes record no operation (aivet_record_written)
	ELSIF aivet_op_bound(p_action) THEN
		UPDATE aivet_op SET audited = true WHERE tx = txid_current()
		    AND action = aivet_op_action(p_action) AND object_type = p_object_type
		    AND object_id = p_object_id;
		IF NOT FOUND THEN
			PERFORM aivet_refused(format('audit entry %s of %s %s follows no such operation in '
			    'this transaction: it is written by the operation''s function', p_action,
			    p_object_type, p_object_id));
		END IF;
	ELSIF p_action = 'endpoint.confirm' AND p_object_type = 'endpoint' THEN
		NULL;   -- writes no row: the login confirms its own reference's origin, the row hash shows the endpoint as it is
	ELSIF EXISTS (SELECT 1 FROM aivet_seal_part WHERE object_type = p_object_type) THEN
		PERFORM aivet_refused(format('audit entry %s of %s %s: a %s is recorded only by the operation '
		    'that writes it', p_action, p_object_type, p_object_id, p_object_type));
	END IF;
	-- One appender at a time, as aivet's transactions already are.
	PERFORM pg_advisory_xact_lock(1634301541);
	SELECT l.seq, l.entry_hash INTO s, prev FROM audit_log l ORDER BY l.seq DESC LIMIT 1;
	s := coalesce(s, 0) + 1;
	prev := coalesce(prev, repeat('0', 64));
	SELECT r.rh, r.content INTO rh, body FROM aivet_row_seal(p_object_type, p_object_id) r;
	IF body IS NOT NULL THEN
		PERFORM aivet_edit_check(p_action, p_object_type, p_object_id, p_details, body);
	END IF;
	h := encode(sha256(aivet_netstring_b(convert_to(s::text, 'UTF8')) ||
	    aivet_netstring_b(convert_to(p_at, 'UTF8')) || aivet_netstring_b(convert_to(me, 'UTF8')) ||
	    aivet_netstring_b(convert_to(p_action, 'UTF8')) ||
	    aivet_netstring_b(convert_to(p_object_type, 'UTF8')) ||
	    aivet_netstring_b(convert_to(p_object_id::text, 'UTF8')) ||
	    aivet_netstring_b(aivet_text_bytes(p_details)) || aivet_netstring_b(convert_to(prev, 'UTF8')) ||
	    coalesce(aivet_netstring_b(convert_to(rh, 'UTF8')), ''::bytea)), 'hex');
	INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash,
	    entry_hash, row_hash, content)
	VALUES (s, p_at, me, p_action, p_object_type, p_object_id, p_details, prev, h, rh, body);
	RETURN s;
END $$;

CALL pin_aivet_functions();
