-- pg/018-no-change.sql: an action that changes no row goes through a function
-- that checks the object exists and that the login may do it. Until now
-- aivet_audit_append() let any assessor append 'endpoint.confirm' about any
-- endpoint id (it writes no row, so no operation bound it): an entry about
-- endpoint 999, which does not exist, was kept, and 'audit verify' failed
-- on it from then on, for every later report. Now 'endpoint.confirm' is an
-- operation like the others: aivet_endpoint_confirm() checks that the
-- endpoint exists, that the entry confirms the URL it has, and that the login
-- wrote each credential reference the entry names (the last entry that set
-- the label to the reference it holds is the login's, as credref.c reads
-- it); only then may the entry follow, in the same transaction. Likewise
-- 'key.register' (a person's approval key, which writes no row either)
-- follows aivet_key_register(), which holds the rules key_register() holds on
-- SQLite: the login's own name, once, a key nobody has, never a key that
-- signed a report here. So do the owner's grants, revocations and time zone
-- (aivet_db_role(), aivet_db_timezone(): the owner, a login or database that
-- exists, a change made) and a vendor's fleet limits (their write records the
-- operation); and an entry of an action aivet never writes is refused.

-- The login that wrote the endpoint's reference under label: the actor of
-- the last entry that set that label to the reference the row holds; NULL
-- when none did.
CREATE FUNCTION aivet_credential_writer(p_endpoint bigint, p_label text) RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT l.actor FROM audit_log l JOIN credential c ON c.endpoint_id = p_endpoint AND c.label = p_label
	WHERE l.object_type = 'endpoint' AND l.object_id = p_endpoint
	    AND l.action IN ('endpoint.add', 'endpoint.edit')
	    AND jsonb_typeof(l.details::jsonb -> 'credentials' -> p_label) = 'string'
	    AND l.details::jsonb -> 'credentials' ->> p_label = c.ref
	    AND NOT EXISTS (SELECT 1 FROM audit_log n WHERE n.object_type = 'endpoint'
	        AND n.object_id = p_endpoint AND n.seq > l.seq AND n.action IN ('endpoint.add', 'endpoint.edit')
	        AND jsonb_typeof(n.details::jsonb -> 'credentials' -> p_label) = 'string')
$$;

-- Records the confirmation the login's 'endpoint.confirm' entry (p_details,
-- as endpoint_confirm() in src/domain/endpoint.c writes it) then carries:
-- refused unless the endpoint exists, the entry's origin_url is its URL, and
-- every label the entry names is a credential of it whose reference the login
-- wrote.
CREATE FUNCTION aivet_endpoint_confirm(p_id bigint, p_details text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	u text;
	d jsonb;
	l text;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'confirming an endpoint');
	SELECT url INTO u FROM endpoint WHERE id = p_id FOR SHARE;
	IF NOT FOUND THEN
		PERFORM aivet_refused(format('endpoint %s does not exist: there is nothing to confirm', p_id));
	END IF;
	BEGIN
		d := p_details::jsonb;
	EXCEPTION WHEN others THEN
		d := NULL;
	END;
	IF jsonb_typeof(d) IS DISTINCT FROM 'object' OR jsonb_typeof(d -> 'credentials') IS DISTINCT FROM 'array'
	    OR jsonb_array_length(d -> 'credentials') = 0 THEN
		PERFORM aivet_refused(format('endpoint %s: a confirmation names the credentials it confirms',
		    p_id));
	END IF;
	IF d ->> 'origin_url' IS DISTINCT FROM u THEN
		PERFORM aivet_refused(format('endpoint %s: its URL is not %s; a confirmation is of the URL it has',
		    p_id, coalesce(d ->> 'origin_url', 'the one confirmed')));
	END IF;
	FOR l IN SELECT jsonb_array_elements_text(d -> 'credentials') LOOP
		IF aivet_credential_writer(p_id, l) IS DISTINCT FROM session_user::text THEN
			PERFORM aivet_refused(format('endpoint %s: %s did not write credential %s''s reference; '
			    'where a secret may go is confirmed by whoever wrote its reference', p_id,
			    session_user, l));
		END IF;
	END LOOP;
	PERFORM aivet_op('endpoint.confirm', 'endpoint', p_id);
END $$;

-- Records the registration the login's 'key.register' entry (p_details, as
-- key_register() in src/domain/assess/approval.c writes it: person, key_id,
-- public_key) then carries, about person_key p_id (the key number's low 63
-- bits, as aivet computes it): refused unless the person is the login, the
-- key id and object id are the key's, the login has no key registered yet,
-- nobody has this key, and no report here was signed with it (a report
-- signing key is the organisation's, never a person's).
CREATE FUNCTION aivet_key_register(p_id bigint, p_details text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	d jsonb;
	pk bytea;
	hex text;
	kid text;
	had text;
	n bigint;
BEGIN
	PERFORM aivet_need('aivet_assessor', 'registering a key');
	PERFORM pg_advisory_xact_lock(1634301541);
	BEGIN
		d := p_details::jsonb;
		pk := decode(d ->> 'public_key', 'base64');
	EXCEPTION WHEN others THEN
		pk := NULL;
	END;
	IF pk IS NULL OR octet_length(pk) <> 42 OR substring(pk from 1 for 2) <> '\x4564'::bytea THEN
		PERFORM aivet_refused('a key registration carries a minisign Ed25519 public key');
	END IF;
	hex := (SELECT string_agg(lpad(to_hex(get_byte(pk, 2 + i)), 2, '0'), '' ORDER BY i DESC)
	    FROM generate_series(0, 7) i);
	kid := upper(coalesce(nullif(ltrim(hex, '0'), ''), '0'));
	IF d ->> 'person' IS DISTINCT FROM session_user::text OR d ->> 'key_id' IS DISTINCT FROM kid
	    OR p_id IS DISTINCT FROM (('x' || hex)::bit(64)::bigint & 9223372036854775807) THEN
		PERFORM aivet_refused(format('a key registration by %s is of key %s, in %s''s name, as person_key %s',
		    session_user, kid, session_user, ('x' || hex)::bit(64)::bigint & 9223372036854775807));
	END IF;
	SELECT l.details::jsonb ->> 'key_id' INTO had FROM audit_log l
	WHERE l.action = 'key.register' AND l.actor = session_user::text ORDER BY l.seq LIMIT 1;
	IF had IS NOT NULL THEN
		PERFORM aivet_refused(format('%s already has key %s registered; a person''s key is registered once',
		    session_user, had));
	END IF;
	SELECT l.actor INTO had FROM audit_log l
	WHERE l.action = 'key.register' AND l.details::jsonb ->> 'public_key' = d ->> 'public_key' LIMIT 1;
	IF had IS NOT NULL THEN
		PERFORM aivet_refused(format('key %s is registered to %s already', kid, had));
	END IF;
	SELECT count(*) INTO n FROM report WHERE key_id = kid;
	IF n > 0 THEN
		PERFORM aivet_refused(format('key %s signs report bundles (%s here): a report signing key is the '
		    'organisation''s, not a person''s, and is not registered to anyone', kid, n));
	END IF;
	PERFORM aivet_op('key.register', 'person_key', p_id);
END $$;

-- The owner's actions that change no table of aivet's: a role granted or
-- revoked (db.grant, db.revoke about the login's oid) and the organisation's
-- time zone (db.timezone about database 1). Before, any assessor could
-- append them: an entry granting a login that does not exist, or the
-- organisation's zone set by someone who may not set it.
CREATE FUNCTION aivet_need_owner(what text) RETURNS void LANGUAGE plpgsql STABLE AS $$
BEGIN
	IF NOT aivet_is_owner() THEN
		RAISE EXCEPTION '% is for the database''s owner: % is not it', what, session_user
			USING ERRCODE = 'insufficient_privilege';
	END IF;
END $$;

-- Records the grant (p_granted) or revocation that the owner's 'db.grant' or
-- 'db.revoke' entry (p_details, as db_role_grant() in
-- src/domain/audit/db-roles.c writes it: login, role) then carries, about the
-- login whose oid is p_oid: refused unless that login exists under the name
-- the entry gives, the role is one of aivet's, and the login holds it (or no
-- longer does) in this transaction, as the entry says.
CREATE FUNCTION aivet_db_role(p_oid bigint, p_details text, p_granted boolean) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	d jsonb;
	who text;
	r text;
	act text := CASE WHEN p_granted THEN 'db.grant' ELSE 'db.revoke' END;
BEGIN
	PERFORM aivet_need_owner(CASE WHEN p_granted THEN 'granting roles' ELSE 'revoking roles' END);
	SELECT rolname INTO who FROM pg_roles WHERE oid = p_oid::oid AND rolcanlogin;
	IF who IS NULL THEN
		PERFORM aivet_refused(format('login %s does not exist: there is no one to %s', p_oid,
		    CASE WHEN p_granted THEN 'grant a role to' ELSE 'revoke a role from' END));
	END IF;
	BEGIN
		d := p_details::jsonb;
	EXCEPTION WHEN others THEN
		d := NULL;
	END;
	r := d ->> 'role';
	IF jsonb_typeof(d) IS DISTINCT FROM 'object' OR d ->> 'login' IS DISTINCT FROM who
	    OR r IS NULL OR r NOT IN ('auditor', 'assessor', 'reviewer') THEN
		PERFORM aivet_refused(format('%s of login %s: an entry names the login %s and one of aivet''s '
		    'roles (auditor, assessor, reviewer)', act, p_oid, who));
	END IF;
	IF EXISTS (SELECT 1 FROM pg_auth_members WHERE member = p_oid::oid
	    AND roleid = ('aivet_' || r)::regrole) IS DISTINCT FROM p_granted THEN
		PERFORM aivet_refused(format('%s of login %s: %s %s aivet_%s; the entry records a change '
		    'made in its transaction', act, p_oid, who,
		    CASE WHEN p_granted THEN 'does not hold' ELSE 'still holds' END, r));
	END IF;
	PERFORM aivet_op(act, 'login', p_oid);
END $$;

-- Records the organisation's time zone the owner's 'db.timezone' entry
-- (p_details, as db_set_timezone() writes it: timezone, previous) then
-- carries, about database p_id: refused unless it is this database (1) and
-- the zone is named as zone_check() in src/core/zone.c accepts a name (no
-- leading '/', no '.', so no path out of the zoneinfo).
CREATE FUNCTION aivet_db_timezone(p_id bigint, p_details text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
	z text;
BEGIN
	PERFORM aivet_need_owner('setting the organisation''s time zone');
	IF p_id IS DISTINCT FROM 1 THEN
		PERFORM aivet_refused(format('database %s does not exist: the organisation''s time zone is '
		    'database 1''s', p_id));
	END IF;
	BEGIN
		z := p_details::jsonb ->> 'timezone';
	EXCEPTION WHEN others THEN
		z := NULL;
	END;
	IF z IS NULL OR z !~ '^[A-Za-z0-9_+-][A-Za-z0-9/_+-]*$' THEN
		PERFORM aivet_refused(format('db.timezone of database 1: %s is not a time zone''s name',
		    coalesce(z, 'an entry without one')));
	END IF;
	PERFORM aivet_op('db.timezone', 'database', 1);
END $$;

-- A vendor's fleet limits (014): an assessor writes probe_limit with SQL, and
-- before, any assessor could append 'probe.limit' about a vendor that does
-- not exist, or change a limit with no entry. Now a write of the limits
-- records the operation, as a vendor's write does (012): its entry must
-- follow by commit, and an entry follows only such a write, of a vendor's
-- row (the foreign key holds it to a vendor that exists). A worker's slot
-- (slot_ms) is no limit, and writes none.
CREATE FUNCTION aivet_probe_limit_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NOT aivet_restoring() THEN
		PERFORM aivet_op('probe.limit', 'probe_limit', NEW.vendor_id);
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER probe_limit_written AFTER INSERT OR UPDATE OF max_runs, per_minute, updated_by, updated_at
	ON probe_limit FOR EACH ROW EXECUTE FUNCTION aivet_probe_limit_written();

-- A confirmation's, a key registration's, a grant's, a revocation's, the
-- zone's and a limit's entries now follow their operation, as the others do.
-- The list of the migrations before is kept as it is, under another name.
ALTER FUNCTION aivet_op_bound(text) RENAME TO aivet_op_bound_017;
CREATE FUNCTION aivet_op_bound(action text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT action IN ('endpoint.confirm', 'key.register', 'db.grant', 'db.revoke', 'db.timezone',
	    'probe.limit') OR aivet_op_bound_017(action)
$$;

-- Every action aivet writes now follows its operation's function, which
-- checks the object and the login's right; an entry of any other action (an
-- assessor's 'note' about a login, a database, anything no operation writes)
-- is refused, whoever appends it. A copy restores entries as they were.
CREATE FUNCTION aivet_audit_known() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NOT aivet_op_bound(NEW.action) AND NOT aivet_restoring() THEN
		RAISE EXCEPTION 'audit entry % of % %: aivet writes no such entry; an entry is written by the '
		    'operation''s function', NEW.action, NEW.object_type, NEW.object_id USING ERRCODE = 'AVR01';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER audit_log_known BEFORE INSERT ON audit_log
	FOR EACH ROW EXECUTE FUNCTION aivet_audit_known();

CALL pin_aivet_functions();
