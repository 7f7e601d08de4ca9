#!/bin/sh
# pg-credrefs.sh: credential references on a shared PostgreSQL database, with
# two logins. The actor is the login, so who set a reference is who logged
# in: alice sets references to rita's secrets (her database password, a key
# in her environment) and rita's probe run stops before any request leaves,
# naming alice. The simulator knows rita's secrets as tenants: had one been
# sent, its log would say so.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/pg-lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"

pg_start
pg_login owner CREATEROLE
for l in alice rita; do pg_login "$l"; done
pg_createdb team owner
export RITA_KEY=sk-rita-0123456789abcdef PGPASSWORD=rita-database-password-42
sim_start --tenants "ritakey=$RITA_KEY,ritadb=$PGPASSWORD" || exit 1
ALLOW="$XDG_CONFIG_HOME/aivet/credentials-allowed"
as() { _l=$1; shift; run --db "$(pg_url team "$_l")" "$@"; }

as owner vendor add V
as owner db grant alice assessor
as owner db grant rita reviewer
as alice endpoint add V --name e --api openai --url "$SIM_URL/v1" --model aivet-sim-1 --context 8192 \
	--credential t1=env:RITA_KEY
is "$rc" 0 "alice (assessor) adds an endpoint whose credential names a variable of rita's"
as rita probe run V/e --probe echo --yes
is "$rc $errout" "2 aivet: tenant 't1': credential env:RITA_KEY was set by alice, not by you (rita), and your configuration does not allow it; nothing was sent. If you mean to send that secret as alice sets it, add the line 'env:RITA_KEY alice' to $ALLOW" \
	"rita's run stops, naming the reference, alice and the setting that would allow it"
as alice endpoint edit V/e --credential t1=env:PGPASSWORD
mkdir -p "$XDG_CONFIG_HOME/aivet" && printf 'env:* alice\n' >"$ALLOW" && chmod 600 "$ALLOW"
as rita probe run V/e --probe echo --yes
is "$rc $errout" "2 aivet: tenant 't1': credential env:PGPASSWORD: that is one of aivet's own secrets (the key passphrase or the database's login), never a vendor's key" \
	"her database password is refused even when her configuration allows every variable"
is "$(grep -c '^aivet-sim: #' "$SIM_LOG")" 0 "the vendor received no request, so neither secret"
is "$(pg_sql -d team "SELECT count(*) FROM probe_run")" 0 "and no run was recorded"
rm "$ALLOW"
as rita endpoint edit V/e --credential t1=env:RITA_KEY
as rita probe run V/e --probe echo --yes
is "$rc $(grep -q 'tenant=ritakey' "$SIM_LOG" && echo sent)" "0 sent" "a reference rita set herself is hers to send"
sim_stop
done_testing
