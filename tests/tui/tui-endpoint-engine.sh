#!/bin/sh
# tui-endpoint-engine.sh: the endpoint form's engine fields in tmux at 80x24,
# against three aivet-sim engines on 127.0.0.1 that want an admin key. An
# endpoint is added with two engine nodes and a credential reference; the CLI
# sees exactly those; the endpoint screen lists the nodes with their ports; a
# node URL the CLI would refuse is refused naming the field, and changes
# nothing; one node is edited, and the edit's audit entry names only the
# engine; audit verify stays intact; the engine probe reads the nodes the
# form set, with the credential the form named.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sim-lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

KEY=adm-0123456789abcdef
sim_start --context 8192 --pool 16384 --engine-key "$KEY" || exit 1
S1=$SIM_URL L1=$SIM_LOG
sim_start --context 8192 --pool 16384 --engine-key "$KEY" || exit 1
S2=$SIM_URL L2=$SIM_LOG
sim_start --context 8192 --pool 16384 --engine-key "$KEY" || exit 1
S3=$SIM_URL L3=$SIM_LOG
# expect_masked NAME: tui_expect with the simulators' ephemeral ports written PORT.
expect_masked() {
	tui_screen | sed -e 's/[[:space:]]*$//' -e 's/127\.0\.0\.1:[0-9][0-9]*/127.0.0.1:PORT/g' > "$T/masked.txt"
	if diff -u "$TESTS_SRCDIR/data/$1" "$T/masked.txt" > "$T/masked.diff"; then
		ok 0 "screen matches $1"
	else
		ok 1 "screen matches $1"
		sed 's/^/# /' "$T/masked.diff"
	fi
}
gets() { grep -c ' GET /get_server_info ' "$1" || true; }
entries() { sqlite3 "$AIVET_DB" "SELECT count(*) FROM audit_log"; }
# saved N: waits (10 s at most) until the audit log holds more than N entries: the
# status line may still show the previous save's words. Then until the form is
# gone: the keys typed while it closes are dropped with it.
saved() {
	_i=0
	while [ $_i -lt 100 ] && [ "$(entries)" -le "$1" ]; do sleep 0.1; _i=$((_i + 1)); done
	while [ $_i -lt 100 ] && tui_screen | grep -q "Edit endpoint"; do sleep 0.1; _i=$((_i + 1)); done
	[ "$(entries)" -gt "$1" ]
}
"$AIVET" vendor add V >/dev/null

TUI_ENV="ENGINE_ADMIN_KEY=$KEY"
tui_start 80x24 tui
tui_wait "V"
tui_keys L
tui_wait "Vendors"
tui_keys Enter
tui_wait "Vendor:      V"; ok $? "the vendor screen"
tui_keys a
tui_wait "Add endpoint"; ok $? "a opens the endpoint form"
tui_type e
tui_keys Tab Tab
tui_type "$S1/v1"
tui_keys Tab
tui_type aivet-sim-1
tui_keys Tab
tui_type 8192
tui_keys Tab Tab Tab Tab Tab
tui_type vllx
tui_wait "one of sglang, vllm, tgi or llama.cpp (empty: no engine)"; ok $? "the engine is one the CLI accepts, checked as typed"
tui_keys C-u
tui_type sglang
tui_keys Tab
# A node the CLI would refuse (plain http off loopback) is refused on Enter, naming the field.
tui_type "$S1, http://10.0.0.5:30000"
tui_keys Tab
tui_type env:ENGINE_ADMIN_KEY
# The screen once the last key is drawn and checked: typed keys arrive one by one under load.
tui_wait "Engine credential  env:ENGINE_ADMIN_KEY "
tui_wait "the engine admin API's credential: env:VAR or file:PATH (empty: none)"
expect_masked tui-endpoint-engine-80x24.txt
before=$(entries)
tui_keys Enter
tui_wait "Engine URLs: --engine-url: plain http to 10.0.0.5 would send"; ok $? "a bad node URL is refused naming the field"
like "$(tui_screen)" "Add endpoint" "the form stays open"
is "$("$AIVET" endpoint list --json | jq -e length):$(entries)" "0:$before" "nothing was written"
# Enter with the cursor on the bad field: fix it, two nodes, comma and blank.
tui_keys C-u
tui_type "$S1, $S2"
tui_keys Enter
tui_wait "endpoint V/e added (id 1, 0 credentials)"; ok $? "the endpoint is added"

run endpoint show V/e --json
is "$(printf '%s' "$out" | jq -c '.engine')" \
    "{\"kind\":\"sglang\",\"nodes\":[\"$S1\",\"$S2\"],\"credential\":\"env:ENGINE_ADMIN_KEY\"}" \
    "endpoint show --json: exactly the two nodes and the credential reference typed in the form"
run audit log --json
is "$(printf '%s' "$out" | jq -c '[.[] | select(.action == "endpoint.add")] | last | .details | [.engine, .credentials["@engine"]]')" \
    "[{\"kind\":\"sglang\",\"nodes\":[\"$S1\",\"$S2\"]},\"env:ENGINE_ADMIN_KEY\"]" \
    "one endpoint.add entry holds the engine and its reference, as the CLI's would"

# The endpoint screen: the nodes beside the endpoint's other facts, ports kept.
tui_keys Enter
tui_wait "endpoint V/e (id 1)"; ok $? "Enter shows the endpoint"
tui_wait "engine       sglang, 2 nodes, credential env:ENGINE_ADMIN_KEY"; ok $? "the engine, its node count and credential reference"
like "$(tui_screen)" "node 1 +$S1" "node 1 with its port (${S1##*:})"
like "$(tui_screen)" "node 2 +$S2" "node 2 with its port (${S2##*:})"
like "$(tui_screen)" "context +8192 tokens" "beside the endpoint's context"
tui_keys q
tui_wait "Vendor:      V"

# Edit one node. A URL carrying a password is refused, naming the field; nothing changes.
shown=$("$AIVET" endpoint show V/e --json)
tui_keys e
tui_wait "Edit endpoint"; ok $? "e opens the form with the endpoint's values"
like "$(tui_screen)" "Engine URLs +$S1 $S2" "the nodes, one after the other"
tui_keys Tab Tab Tab Tab Tab Tab Tab Tab Tab Tab
tui_type "$S1 https://user:pw@10.0.0.5/"
before=$(entries)
tui_keys Enter
tui_wait "Engine URLs: --engine-url: the URL carries a user name or password"; ok $? "a URL with a password in it is refused naming the field"
is "$("$AIVET" endpoint show V/e --json):$(entries)" "$shown:$before" "the endpoint and the audit log are as they were"
tui_keys C-u
tui_type "$S1 $S3"
tui_keys Enter
tui_wait "endpoint V/e updated"; ok $? "the edit is saved"
run endpoint show V/e --json
is "$(printf '%s' "$out" | jq -c '[.engine.nodes, .engine.credential, .url, .context_tokens]')" \
    "[[\"$S1\",\"$S3\"],\"env:ENGINE_ADMIN_KEY\",\"$S1/v1\",8192]" "node 2 is replaced; the rest is as it was"
run audit log --json
is "$(printf '%s' "$out" | jq -c '[.[] | select(.action == "endpoint.edit")] | [length, (last | .details | keys), (last | .details.engine.nodes)]')" \
    "[1,[\"engine\"],[\"$S1\",\"$S3\"]]" "one endpoint.edit entry, naming the engine and nothing else"

# Enter on an unchanged form writes nothing.
before=$(entries)
tui_keys e
tui_wait "Edit endpoint"
tui_keys Enter
tui_wait "endpoint V/e: nothing changed"; ok $? "an unchanged form says so"
is "$(entries)" "$before" "and writes no audit entry"

# Credentials: an edit sends the labels added or changed, and removes those taken out.
# edit_creds TEXT: the Credentials field (the sixth) set to TEXT, saved.
edit_creds() {
	_was=$(entries)
	tui_keys e
	tui_wait "Edit endpoint"
	tui_keys Tab Tab Tab Tab Tab C-u
	[ -n "$1" ] && tui_type "$1"
	tui_keys Enter
	saved "$_was"
}
last_edit() {
	"$AIVET" audit log --json | jq -c '[.[] | select(.action == "endpoint.edit")] | last | .details'
}
edit_creds "t1=env:K1"; ok $? "a credential is added in the form"
is "$(last_edit)" '{"credentials":{"t1":"env:K1"}}' "the entry names it alone"
edit_creds "t1=env:K1 t2=env:K2"
is "$(last_edit)" '{"credentials":{"t2":"env:K2"}}' "a second one: the entry names the new one, not the one kept"
edit_creds "t2=env:K3"
is "$(last_edit)" '{"credentials_removed":["t1"],"credentials":{"t2":"env:K3"}}' \
    "one taken out and one changed: the entry names both changes"
run endpoint show V/e --json
is "$(printf '%s' "$out" | jq -c '[.credentials[] | [.label, .ref]]')" '[["t2","env:K3"]]' "the endpoint holds what the form shows"

run audit verify
is "$rc" 0 "audit verify is intact after the form's writes"

# The engine probe reads the nodes the form set, with the credential it named.
ENGINE_ADMIN_KEY=$KEY K3=k3 run probe run V/e --probe engine --yes --json
is "$rc:$(printf '%s' "$out" | jq -r '[.probes[] | "\(.name):\(.verdict)"] | join(" ")')" "0:engine:pass" \
    "the engine probe passes on the endpoint made in the form"
is "$(printf '%s' "$out" | jq -c '[.probes[0].details.nodes[] | [.url, .verdict, .pool_tokens]]')" \
    "[[\"$S1\",\"read\",16384],[\"$S3\",\"read\",16384]]" "both nodes read, each pool from its server info"
is "$(gets "$L1"):$(gets "$L2"):$(gets "$L3")" "1:0:1" "nodes 1 and 3 were asked once each; the node edited out was not"
is "$(sqlite3 "$AIVET_DB" "SELECT count(*) || ':' || total(instr(request_headers, '$KEY') > 0) FROM exchange WHERE probe = 'engine'")" 2:0.0 \
    "the admin key is in neither node's exchange"

# Emptying the three engine fields removes the engine, as --remove-engine does.
before=$(entries)
tui_keys e
tui_wait "Edit endpoint"
tui_keys Tab Tab Tab Tab Tab Tab Tab Tab Tab C-u Tab C-u Tab C-u Enter
saved "$before"; ok $? "the engine fields emptied are saved"
is "$("$AIVET" endpoint show V/e --json | jq -c '.engine')" null "the endpoint has no engine"
is "$(last_edit | jq -c '.engine.nodes')" '[]' "the entry records the engine with no nodes"
run audit verify
is "$rc" 0 "audit verify is intact after the engine is removed"

tui_q_out
tui_stop
done_testing
