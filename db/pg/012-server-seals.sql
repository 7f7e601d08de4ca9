-- pg/012-server-seals.sql: the server computes every hash. Until now
-- aivet_audit_append() took the entry's seq, previous hash, row hash and
-- entry hash from its caller and only checked that the entry hash matched
-- what the caller sent: a role could append an entry with a row hash of her
-- choosing (one wrong on purpose is a false alarm in every later report), or
-- with none, then UPDATE a vendor or endpoint behind it.
--
-- Now the one way to append is aivet_audit_append(at, action, object_type,
-- object_id, details): it takes the next seq and the head's hash itself,
-- computes the row hash from the rows as they are in this transaction
-- (aivet_row_hash(), over the parts of each seal as src/core/seal-parts.h
-- lists them: aivet copies that list into aivet_seal_part in each migration
-- it applies, as it does the severities), and the entry hash over all of it,
-- in the login's name (session_user). The old function is dropped.
--
-- An entry about a sealed object type is written only by the operation that
-- writes such a row: the functions of 008 for evidence, and, for vendors and
-- endpoints (which the assessor still writes with SQL), any INSERT, UPDATE or
-- DELETE of a vendor, endpoint or credential row records the operation
-- (vendor.write, endpoint.write) for its transaction, which must then carry
-- that object's audit entry by commit (the deferred check of 008), appended
-- after the change. So a change with no entry, or an entry followed by a
-- further change, is refused at commit; and an entry for a row not written
-- in its transaction is refused at once. (The database's owner, who owns the
-- tables and could drop these triggers, is not held to this for vendors and
-- endpoints: its raw SQL is its own to answer for, and audit verify names a
-- row that no longer matches its entry.)

CREATE TABLE aivet_seal_part (
	ord         integer PRIMARY KEY,
	object_type text NOT NULL,
	tbl         text NOT NULL,
	cols        text NOT NULL,
	key         text NOT NULL,
	order_by    text NOT NULL,
	cond        text,
	late        integer NOT NULL
);
REVOKE ALL ON aivet_seal_part FROM aivet_auditor, aivet_assessor, aivet_reviewer;
GRANT SELECT ON aivet_seal_part TO aivet_auditor;

-- The row hash of src/core/audit.c: the netstrings of the type and id, then for
-- each part its table's name (a late part's only when it has rows) and each row's
-- columns, a column as the netstring of its text or '~' for NULL. NULL for a type
-- that is not sealed.
-- Text as the client hashes it: the bytes it came as. db-pg.c stores text that
-- is not UTF-8 escaped (each stray byte as U+FDD0 then U+F700 + the byte, U+FDD0
-- itself doubled); the hash is over the bytes before escaping, as on SQLite.
CREATE FUNCTION aivet_text_bytes(t text) RETURNS bytea LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
	esc constant text := U&'\FDD0';
	acc bytea := ''::bytea;
	p integer;
	c integer;
BEGIN
	IF strpos(t, esc) = 0 THEN
		RETURN convert_to(t, 'UTF8');
	END IF;
	LOOP
		p := strpos(t, esc);
		EXIT WHEN p = 0;
		acc := acc || convert_to(substr(t, 1, p - 1), 'UTF8');
		c := coalesce(ascii(substr(t, p + 1, 1)), 0);
		IF c = 64976 THEN                       -- U+FDD0 doubled: U+FDD0 itself
			acc := acc || convert_to(esc, 'UTF8');
			t := substr(t, p + 2);
		ELSIF c BETWEEN 63360 AND 63487 THEN    -- U+F780..U+F7FF: the byte 0x80..0xff
			acc := acc || set_byte('\x00'::bytea, 0, c - 63232);
			t := substr(t, p + 2);
		ELSE                                    -- written by someone else: kept as it is
			acc := acc || convert_to(esc, 'UTF8');
			t := substr(t, p + 1);
		END IF;
	END LOOP;
	RETURN acc || convert_to(t, 'UTF8');
END $$;

CREATE FUNCTION aivet_netstring_b(b bytea) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT convert_to(length(b)::text || ':', 'UTF8') || b || convert_to(',', 'UTF8')
$$;

CREATE FUNCTION aivet_row_hash(p_type text, p_id bigint) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
	p aivet_seal_part;
	acc bytea := aivet_netstring_b(convert_to(p_type, 'UTF8')) || aivet_netstring_b(convert_to(p_id::text, 'UTF8'));
	part bytea;
	n bigint;
	sealed boolean := false;
BEGIN
	FOR p IN SELECT * FROM aivet_seal_part WHERE object_type = p_type ORDER BY ord LOOP
		sealed := true;
		EXECUTE format('SELECT count(*), coalesce(string_agg(%s, ''''::bytea ORDER BY %s), ''''::bytea) FROM %I WHERE %I = $1%s',
		    (SELECT string_agg(format('CASE WHEN %1$I IS NULL THEN convert_to(%2$L, ''UTF8'') ELSE aivet_netstring_b(aivet_text_bytes(%1$I::text)) END',
		        trim(c), '~'), ' || ' ORDER BY k) FROM unnest(string_to_array(p.cols, ',')) WITH ORDINALITY AS u(c, k)),
		    p.order_by, p.tbl, p.key, CASE WHEN p.cond IS NULL THEN '' ELSE ' AND ' || p.cond END)
		INTO n, part USING p_id;
		IF p.late = 0 OR n > 0 THEN
			acc := acc || aivet_netstring_b(convert_to(p.tbl, 'UTF8'));
		END IF;
		acc := acc || part;
	END LOOP;
	IF NOT sealed THEN
		RETURN NULL;
	END IF;
	RETURN encode(sha256(acc), 'hex');
END $$;

-- Vendors, endpoints and their credentials: the operation is the write itself.
CREATE OR REPLACE FUNCTION aivet_op_action(action text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN action IN ('answer.set', 'answer.clear', 'answer.note', 'answer.import') THEN 'answer'
	    WHEN action IN ('vendor.add', 'vendor.edit', 'vendor.archive') THEN 'vendor.write'
	    WHEN action IN ('endpoint.add', 'endpoint.edit', 'endpoint.archive') THEN 'endpoint.write'
	    ELSE action END
$$;
CREATE OR REPLACE FUNCTION aivet_op_bound(action text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT aivet_op_action(action) IN ('assessment.start', 'assessment.submit', 'assessment.approve',
	    'assessment.return', 'assessment.reopen', 'answer', 'answer.evidence', 'evidence.add',
	    'probe.exchange', 'questionnaire.load', 'incident.open', 'incident.status', 'incident.edit',
	    'incident.entry', 'incident.link', 'probe.start', 'probe.calibrate', 'probe.finish',
	    'probe.interrupted', 'probe.result', 'probe.finding', 'incident.task.add',
	    'incident.task.done', 'report.export', 'blob.seal', 'vendor.write', 'endpoint.write',
	    -- an advisory's import (013); the queue's writes (014)
	    'advisory.import', 'probe.queue', 'probe.requeue', 'schedule.add', 'schedule.remove')
$$;

CREATE FUNCTION aivet_record_written() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	id bigint;
BEGIN
	-- A copy restores rows as they were; the owner's vendor and endpoint SQL is
	-- the owner's to answer for (005-roles.sql), and audit verify still names
	-- what it changed. An advisory (013) is recorded by its import, whoever imports it.
	IF aivet_restoring() OR (aivet_is_owner() AND TG_TABLE_NAME <> 'advisory') THEN
		RETURN NULL;
	END IF;
	-- A credential and an engine node (013) are their endpoint's write.
	IF TG_TABLE_NAME IN ('credential', 'engine_node') THEN
		id := CASE WHEN TG_OP = 'DELETE' THEN OLD.endpoint_id ELSE NEW.endpoint_id END;
	ELSE
		id := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
	END IF;
	PERFORM aivet_op(CASE TG_TABLE_NAME WHEN 'vendor' THEN 'vendor.write' WHEN 'advisory' THEN 'advisory.import'
	    ELSE 'endpoint.write' END, CASE TG_TABLE_NAME WHEN 'vendor' THEN 'vendor' WHEN 'advisory' THEN 'advisory'
	    ELSE 'endpoint' END, id);
	RETURN NULL;
END $$;
CREATE TRIGGER vendor_written AFTER INSERT OR UPDATE OR DELETE ON vendor
	FOR EACH ROW EXECUTE FUNCTION aivet_record_written();
CREATE TRIGGER endpoint_written AFTER INSERT OR UPDATE OR DELETE ON endpoint
	FOR EACH ROW EXECUTE FUNCTION aivet_record_written();
CREATE TRIGGER credential_written AFTER INSERT OR UPDATE OR DELETE ON credential
	FOR EACH ROW EXECUTE FUNCTION aivet_record_written();

DROP FUNCTION aivet_audit_append(bigint, text, text, text, bigint, text, text, text, text);

-- Appends an entry as audit.c encodes it (aivet(1)), every hash computed here,
-- in the login's name. Returns its seq.
CREATE FUNCTION aivet_audit_append(p_at text, p_action text, p_object_type text, p_object_id bigint,
    p_details text) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	me text := session_user;
	s bigint;
	prev text;
	rh text;
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
	rh := aivet_row_hash(p_object_type, p_object_id);
	h := encode(sha256(aivet_netstring_b(convert_to(s::text, 'UTF8')) ||
	    aivet_netstring_b(convert_to(p_at, 'UTF8')) || aivet_netstring_b(convert_to(me, 'UTF8')) ||
	    aivet_netstring_b(convert_to(p_action, 'UTF8')) ||
	    aivet_netstring_b(convert_to(p_object_type, 'UTF8')) ||
	    aivet_netstring_b(convert_to(p_object_id::text, 'UTF8')) ||
	    aivet_netstring_b(aivet_text_bytes(p_details)) || aivet_netstring_b(convert_to(prev, 'UTF8')) ||
	    coalesce(aivet_netstring_b(convert_to(rh, 'UTF8')), ''::bytea)), 'hex');
	INSERT INTO audit_log (seq, at, actor, action, object_type, object_id, details, prev_hash,
	    entry_hash, row_hash)
	VALUES (s, p_at, me, p_action, p_object_type, p_object_id, p_details, prev, h, rh);
	RETURN s;
END $$;

-- The functions' grants and pinned search_path, as 008 gives its own: one
-- procedure, which each later migration calls after making its functions.
CREATE PROCEDURE pin_aivet_functions() LANGUAGE plpgsql AS $$
DECLARE f regprocedure;
BEGIN
	FOR f IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
	    AND p.proname LIKE 'aivet\_%' LOOP
		EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO aivet_auditor', f);
	END LOOP;
END $$;
REVOKE ALL ON PROCEDURE pin_aivet_functions() FROM PUBLIC;
CALL pin_aivet_functions();
