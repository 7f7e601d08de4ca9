#!/bin/sh
# hard-credrefs.sh: on a shared database a credential reference is someone's
# word about where a secret lives, and a probe run sends that secret to a
# vendor. A run reads a reference only when its runner set it (the actor of
# the audit entry that set it last) or allowed it in their own configuration
# (CONFIG/credentials-allowed); anything else stops the run before a request
# leaves, naming the reference, who set it and the line that would allow it.
# aivet's own secrets (the key passphrase file, the database and its login)
# are never read, whoever set the reference or allowed it. The simulator
# knows rita's secrets as tenants: had one been sent, its log would say so.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

export RITA_KEY=sk-rita-0123456789abcdef ALICE_KEY=sk-alice-fedcba9876543210
export PGPASSWORD=rita-database-password-42
sim_start --tenants "ritakey=$RITA_KEY,alice=$ALICE_KEY,ritadb=$PGPASSWORD" || exit 1
ALLOW="$XDG_CONFIG_HOME/aivet/credentials-allowed"
mkdir -p "$XDG_CONFIG_HOME/aivet"
as() { _a=$1; shift; AIVET_ACTOR=$_a run "$@"; }
sent() { grep -c '^aivet-sim: #' "$SIM_LOG"; }
# probe_as ACTOR: a one-probe run of V/e; $rc, $errout.
probe_as() { AIVET_ACTOR=$1 run probe run V/e --probe echo --yes; }

as alice vendor add V
as alice endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential t1=env:RITA_KEY
is "$rc" 0 "alice adds an endpoint whose credential names a variable of rita's"
before=$(db_snapshot)
probe_as rita
is "$rc $errout" "2 aivet: tenant 't1': credential env:RITA_KEY was set by alice, not by you (rita), and your configuration does not allow it; nothing was sent. If you mean to send that secret as alice sets it, add the line 'env:RITA_KEY alice' to $ALLOW" \
	"rita's run stops: it names the reference, who set it and the setting that would allow it"
is "$(sent)" 0 "the vendor received nothing"
is "$(db_snapshot)" "$before" "and nothing was recorded"
probe_as alice
is "$rc $(grep -q 'tenant=ritakey' "$SIM_LOG" && echo sent)" "0 sent" "alice, who set it, runs it (with whatever RITA_KEY is in her own environment)"

# Allowed in rita's own configuration, by name or pattern.
printf '# keys I send on purpose\nenv:RITA_* alice\n' >"$ALLOW"
chmod 644 "$ALLOW"
probe_as rita
is "$rc" 0 "a pattern in rita's credentials-allowed lets her run it"
chmod 666 "$ALLOW"
probe_as rita
is "$rc $errout" "2 aivet: tenant 't1': $ALLOW: writable by someone else than you; chmod 600 it" \
	"a configuration others may write allows nothing"
printf 'RITA_KEY\n' >"$ALLOW" && chmod 600 "$ALLOW"
probe_as rita
is "$rc $errout" "2 aivet: tenant 't1': $ALLOW:1: expected env:NAME or file:PATH (patterns allowed) and the login of its writer" \
	"a line that is no reference is named with its line"
# A '*' stays within one path segment: file:DIR/* allows DIR's own files, not
# one in a directory under it.
mkdir -p "$T/keys/sub"
printf '%s\n' "$RITA_KEY" >"$T/keys/sub/rita" && chmod 600 "$T/keys/sub/rita"
as alice endpoint edit V/e --credential "t1=file:$T/keys/sub/rita"
printf 'file:%s/keys/* alice\n' "$T" >"$ALLOW" && chmod 600 "$ALLOW"
probe_as rita
is "$rc $errout" "2 aivet: tenant 't1': credential file:$T/keys/sub/rita was set by alice, not by you (rita), and your configuration does not allow it; nothing was sent. If you mean to send that secret as alice sets it, add the line 'file:$T/keys/sub/rita alice' to $ALLOW" \
	"file:DIR/* does not allow a file under DIR/sub"
printf 'file:%s/keys/*/* alice\n' "$T" >"$ALLOW"
probe_as rita
is "$rc" 0 "file:DIR/*/* does"
as alice endpoint edit V/e --credential t1=env:RITA_KEY
rm "$ALLOW"
as rita endpoint edit V/e --credential t1=env:RITA_KEY
probe_as rita
is "$rc" 0 "once rita sets the reference herself, her run reads it"
probe_as alice
like "$rc $errout" "^2 aivet: tenant 't1': credential env:RITA_KEY was set by rita, not by you \(alice\)" \
	"and now alice's run stops instead"

# aivet's own secrets: never, whoever set or allowed them.
n0=$(sent)
as rita endpoint edit V/e --credential t1=env:PGPASSWORD
printf 'env:* alice\nfile:* rita\n' >"$ALLOW" && chmod 600 "$ALLOW"
probe_as rita
is "$rc $errout" "2 aivet: tenant 't1': credential env:PGPASSWORD: that is one of aivet's own secrets (the key passphrase or the database's login), never a vendor's key" \
	"the database password, set and allowed by rita herself, is refused"
for v in PGPASSFILE PGSERVICE AIVET_DB DATABASE_URL AIVET_KEY_PASSWORD_FILE; do
	as alice endpoint edit V/e --credential t1=env:$v
	probe_as rita
	like "$rc $errout" "^2 aivet: tenant 't1': credential env:$v: that is one of aivet's own secrets" \
		"env:$v is refused"
done
printf 'passphrase\n' >"$T/pass" && chmod 600 "$T/pass"
export AIVET_KEY_PASSWORD_FILE="$T/pass"
as rita endpoint edit V/e --credential t1=file:$T/pass
probe_as rita
is "$rc $errout" "2 aivet: tenant 't1': credential file:$T/pass: that is one of aivet's own key or database files, never a vendor's key" \
	"a 0600 AIVET_KEY_PASSWORD_FILE is refused as a file: credential"
unset AIVET_KEY_PASSWORD_FILE
printf '%s\n' "$PGPASSWORD" >"$HOME/.pgpass" && chmod 600 "$HOME/.pgpass"
as rita endpoint edit V/e --credential t1=file:$HOME/.pgpass
probe_as rita
like "$rc $errout" "^2 aivet: tenant 't1': credential file:$HOME/.pgpass: that is one of aivet's own" \
	"libpq's password file is refused"
is "$(sent) $(grep -c 'tenant=ritadb' "$SIM_LOG")" "$n0 0" "the vendor never received rita's database password"

# A reference written behind aivet's back has no writer: nobody's run reads it.
rm "$ALLOW"
as rita endpoint edit V/e --credential t1=env:RITA_KEY
sqlite3 "$AIVET_DB" "UPDATE credential SET ref = 'env:ALICE_KEY' WHERE label = 't1'"
probe_as rita
is "$rc $errout" "2 aivet: tenant 't1': credential env:ALICE_KEY was set by no audited change (the row was written outside aivet), not by you (rita); no configuration allows that; nothing was sent. Set the reference with 'aivet endpoint edit'" \
	"a reference no audit entry set is nobody's"
sim_stop
done_testing
