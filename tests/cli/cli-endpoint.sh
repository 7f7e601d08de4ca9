#!/bin/sh
# cli-endpoint.sh: "aivet endpoint" on a temporary database — credential
# references (never secrets), URL rules, VENDOR/NAME addressing, and bad
# input that must change nothing.
. "$TESTS_SRCDIR/lib/lib.sh"

run vendor add Acme
run endpoint add Acme --name prod --api openai --url https://api.acme.example/v1 --model triage-1 \
	--context 1048576 --credential tenant-a=env:ACME_KEY_A --credential tenant-b=file:/run/keys/b \
	--price-in 2.5 --price-out 10 --option api-version=2024-10-21
is "$rc" 0 "endpoint add exits 0"
is "$out" "endpoint Acme/prod added (id 1, 2 credentials)" "endpoint add says what it did"
run endpoint add Acme --name local --api anthropic --url http://127.0.0.1:8080 --model m --context 8192
is "$out" "endpoint Acme/local added (id 2, 0 credentials)" "loopback http is allowed"
run endpoint add Acme --name lan --api openai --url http://inference.lan:8000/v1 --model m \
	--context 4096 --allow-insecure-http
is "$rc" 0 "non-loopback http allowed with --allow-insecure-http"

run endpoint show Acme/prod --json
is "$(printf '%s' "$out" | json '[.ref, .api, .url, .model, .context_tokens, .allow_insecure_http, .price_in_per_mtok, .price_out_per_mtok, .options["api-version"], .status] | @csv')" \
	'"Acme/prod","openai","https://api.acme.example/v1","triage-1",1048576,false,2.5,10,"2024-10-21","active"' \
	"endpoint fields"
is "$(printf '%s' "$out" | json '[.credentials[] | .label + "=" + .ref] | @csv')" \
	'"tenant-a=env:ACME_KEY_A","tenant-b=file:/run/keys/b"' "credentials are references"
run endpoint list Acme --json
is "$(printf '%s' "$out" | json '[.[].ref] | @csv')" '"Acme/lan","Acme/local","Acme/prod"' "list by vendor"

run endpoint edit Acme/prod --context 681280 --credential tenant-c=env:ACME_KEY_C --remove-credential tenant-b
is "$out" "endpoint Acme/prod updated" "edit"
run endpoint show Acme/prod --json
is "$(printf '%s' "$out" | json '[.context_tokens, ([.credentials[].label] | join(" "))] | @csv')" \
	'681280,"tenant-a tenant-c"' "edit changed context and credentials"
run endpoint edit Acme/prod --name production
run endpoint show Acme/production --json
is "$(printf '%s' "$out" | json '.id')" 1 "rename keeps the id"

# Bad input: refused, exit 2, exact message, nothing changed.
before=$(db_snapshot)
check_refused() {
	want_msg=$1; shift
	run "$@"
	is "$rc" 2 "refused: $*"
	is "$errout" "aivet: $want_msg" "message: $*"
}
check_refused "unknown vendor 'Nope' (see 'aivet vendor list')" \
	endpoint add Nope --name x --api openai --url https://x.example --model m --context 10
check_refused "endpoint 'Acme/production' already exists" \
	endpoint add Acme --name production --api openai --url https://x.example --model m --context 10
check_refused "--url: 'ftp://x.example/v1' is not an http(s) URL" \
	endpoint add Acme --name x --api openai --url ftp://x.example/v1 --model m --context 10
check_refused "--url: 'not a url' is not a valid URL" \
	endpoint add Acme --name x --api openai --url "not a url" --model m --context 10
check_refused "--url: plain http to api.example.com would send credentials unencrypted; use https, or --allow-insecure-http if you really mean it" \
	endpoint add Acme --name x --api openai --url http://api.example.com/v1 --model m --context 10
check_refused "--credential tenant-a: a credential must be a reference, env:VAR or file:PATH; a literal secret is refused and was not stored" \
	endpoint add Acme --name x --api openai --url https://x.example --model m --context 10 --credential tenant-a=sk-live-abc123
check_refused "--credential must be LABEL=env:VAR or LABEL=file:PATH" \
	endpoint add Acme --name x --api openai --url https://x.example --model m --context 10 --credential sk-live-abc123
check_refused "--credential: label 'a' given twice" \
	endpoint add Acme --name x --api openai --url https://x.example --model m --context 10 --credential a=env:A --credential a=env:B
check_refused "--api: 'mistral' is not one of openai, anthropic, azure-openai, gemini, bedrock, cloudflare" \
	endpoint add Acme --name x --api mistral --url https://x.example --model m --context 10
check_refused "--context: 0 is out of range (1 to 1099511627776)" \
	endpoint add Acme --name x --api openai --url https://x.example --model m --context 0
check_refused "endpoint 'Acme' must be written VENDOR/NAME or its id" endpoint show Acme
check_refused "unknown endpoint id 999 (see 'aivet endpoint list')" endpoint show 999
# The id endpoint list prints names the same endpoint as VENDOR/NAME does.
eid=$("$AIVET" endpoint list Acme --json | jq -r '.[] | select(.ref == "Acme/production") | .id')
like "$eid" '^[0-9]+$' "endpoint list gives production's id"
run endpoint show "$eid" --json
is "$rc:$(printf '%s' "$out" | jq -r '"\(.id) \(.ref)"')" "0:$eid Acme/production" "endpoint show takes the id endpoint list prints"
check_refused "unknown endpoint 'Acme/nope' (see 'aivet endpoint list')" endpoint show Acme/nope
# Positionals the command declares, counted by the framework in one wording.
show="aivet: endpoint show needs exactly one VENDOR/NAME
usage: aivet endpoint show VENDOR/NAME [--json]"
list="aivet: endpoint list takes at most one VENDOR
usage: aivet endpoint list [VENDOR] [--all] [--json]"
run endpoint show
is "$rc:$errout" "2:$show" "endpoint show without its target"
run endpoint show Acme/production Acme/production
is "$rc:$errout" "2:$show" "endpoint show with two"
run endpoint list Acme Acme
is "$rc:$errout" "2:$list" "endpoint list with two vendors"
check_refused "unknown vendor 'Nope' (see 'aivet vendor list')" endpoint list Nope
run probe runs Acme Acme
is "$rc:$errout" "2:aivet: probe runs takes at most one VENDOR
usage: aivet probe runs [VENDOR] [--json]" "probe runs with two vendors"
check_refused "unknown vendor 'Nope' (see 'aivet vendor list')" probe runs Nope
run probe runs Acme
is "$rc:$out" "0:no probe runs" "probe runs of a vendor"
check_refused "--url: plain http to api.example.com would send credentials unencrypted; use https, or --allow-insecure-http if you really mean it" \
	endpoint edit Acme/production --url http://api.example.com
check_refused "--url: plain http to inference.lan would send credentials unencrypted; use https, or --allow-insecure-http if you really mean it" \
	endpoint edit Acme/lan --require-https
check_refused "--remove-credential: the endpoint has no credential labelled 'zzz'" \
	endpoint edit Acme/production --remove-credential zzz
run endpoint add Acme --name x --api openai --url https://x.example --model m
is "$rc" 2 "missing --context refused"
like "$errout" "endpoint add needs --name, --api, --url, --model and --context" "missing options named"
is "$(db_snapshot)" "$before" "no refused command changed the database"
if sqlite3 "$AIVET_DB" .dump | grep -q 'sk-live'; then ok 1 "no literal secret stored"; else ok 0 "no literal secret stored"; fi

run endpoint archive Acme/local
is "$out" "endpoint Acme/local archived" "archive"
run endpoint list --json
is "$(printf '%s' "$out" | json '[.[].name] | @csv')" '"lan","production"' "archived endpoint hidden"
run endpoint list --all --json
is "$(printf '%s' "$out" | json '[.[] | .name + ":" + .status] | @csv')" \
	'"lan:active","local:archived","production:active"' "--all shows it"
run vendor archive Acme
run endpoint list --all --json
is "$(printf '%s' "$out" | json '[.[].status] | unique | @csv')" '"archived"' "archiving a vendor archives its endpoints"
run endpoint add Acme --name y --api openai --url https://x.example --model m --context 10
is "$errout" "aivet: vendor 'Acme' is archived" "no endpoints on an archived vendor"

run audit verify
is "$out" "$(printf 'audit chain intact: %s entries, head %s' \
	"$(sqlite3 "$AIVET_DB" 'SELECT count(*) FROM audit_log')" \
	"$(sqlite3 "$AIVET_DB" 'SELECT entry_hash FROM audit_log ORDER BY seq DESC LIMIT 1')")" "chain intact after all of it"

# ---- the records' one JSON form, byte for byte ----
# vendor show --json, vendor list --json and endpoint show print the typed
# records through their one writer each; the bytes are a contract.
(
export AIVET_DB="$T/records.db" AIVET_NOW=2026-11-30T12:00:00Z
"$AIVET" vendor add "Rec Labs" --criticality 3 --contact sec@rec.example >/dev/null
"$AIVET" endpoint add "Rec Labs" --name prod --api openai --url https://api.rec.example/v1 \
	--model rec-1 --context 131072 --price-in 2.5 --credential a=env:REC_A \
	--credential b=file:/run/rec-b --credential-org a=tenant-a --option api-version=2024-10-21 >/dev/null
"$AIVET" endpoint add "Rec Labs" --name old --api anthropic --url http://127.0.0.1:9/v1 --model m \
	--context 8192 >/dev/null
"$AIVET" endpoint archive "Rec Labs/old" >/dev/null
# What a JSON string escapes (a quote, a backslash, a tab, a control) and what it does not (UTF-8).
"$AIVET" vendor add "Zed é" --criticality 0 --notes "$(printf 'say "hi"\\ then\ttab\001')" >/dev/null
"$AIVET" vendor show "Rec Labs" --json >"$T/vshow.json"
"$AIVET" vendor list --json >"$T/vlist.json"
"$AIVET" endpoint show "Rec Labs/prod" >"$T/eshow.txt"
)
cat >"$T/vshow.want" <<'EOF'
{
	"id":	1,
	"name":	"Rec Labs",
	"criticality":	3,
	"contact":	"sec@rec.example",
	"notes":	null,
	"status":	"active",
	"created_at":	"2026-11-30T12:00:00.000Z",
	"updated_at":	"2026-11-30T12:00:00.000Z",
	"endpoints":	1,
	"open_incidents":	0,
	"endpoint_list":	[{
			"id":	2,
			"vendor":	"Rec Labs",
			"name":	"old",
			"ref":	"Rec Labs/old",
			"api":	"anthropic",
			"url":	"http://127.0.0.1:9/v1",
			"model":	"m",
			"context_tokens":	8192,
			"allow_insecure_http":	false,
			"price_in_per_mtok":	null,
			"price_out_per_mtok":	null,
			"options":	{
			},
			"status":	"archived",
			"created_at":	"2026-11-30T12:00:00.000Z",
			"updated_at":	"2026-11-30T12:00:00.000Z",
			"credentials":	[],
			"engine":	null
		}, {
			"id":	1,
			"vendor":	"Rec Labs",
			"name":	"prod",
			"ref":	"Rec Labs/prod",
			"api":	"openai",
			"url":	"https://api.rec.example/v1",
			"model":	"rec-1",
			"context_tokens":	131072,
			"allow_insecure_http":	false,
			"price_in_per_mtok":	2.5,
			"price_out_per_mtok":	null,
			"options":	{
				"api-version":	"2024-10-21"
			},
			"status":	"active",
			"created_at":	"2026-11-30T12:00:00.000Z",
			"updated_at":	"2026-11-30T12:00:00.000Z",
			"credentials":	[{
					"label":	"a",
					"ref":	"env:REC_A",
					"org":	"tenant-a"
				}, {
					"label":	"b",
					"ref":	"file:/run/rec-b",
					"org":	null
				}],
			"engine":	null
		}],
	"rating":	"not-assessed",
	"rating_basis":	"no final round; no probe run",
	"since_approval":	null,
	"open_findings":	{
		"critical":	0,
		"high":	0,
		"medium":	0,
		"low":	0,
		"info":	0
	},
	"draft":	null,
	"in_work":	[]
}
EOF
cat >"$T/vlist.want" <<'EOF'
[
{
	"id":	1,
	"name":	"Rec Labs",
	"criticality":	3,
	"contact":	"sec@rec.example",
	"notes":	null,
	"status":	"active",
	"created_at":	"2026-11-30T12:00:00.000Z",
	"updated_at":	"2026-11-30T12:00:00.000Z",
	"endpoints":	1,
	"open_incidents":	0,
	"rating":	"not-assessed",
	"rating_basis":	"no final round; no probe run",
	"since_approval":	null,
	"open_findings":	{
		"critical":	0,
		"high":	0,
		"medium":	0,
		"low":	0,
		"info":	0
	},
	"draft":	null
},
{
	"id":	2,
	"name":	"Zed é",
	"criticality":	0,
	"contact":	null,
	"notes":	"say \"hi\"\\ then\ttab\u0001",
	"status":	"active",
	"created_at":	"2026-11-30T12:00:00.000Z",
	"updated_at":	"2026-11-30T12:00:00.000Z",
	"endpoints":	0,
	"open_incidents":	0,
	"rating":	"not-assessed",
	"rating_basis":	"no final round; no probe run",
	"since_approval":	null,
	"open_findings":	{
		"critical":	0,
		"high":	0,
		"medium":	0,
		"low":	0,
		"info":	0
	},
	"draft":	null
}
]
EOF
cat >"$T/eshow.want" <<'EOF'
endpoint Rec Labs/prod (id 1)
  api          openai
  url          https://api.rec.example/v1
  model        rec-1
  context      131072 tokens
  status       active
  credentials
    a                env:REC_A  (organisation tenant-a)
    b                file:/run/rec-b
EOF
cmp -s "$T/vshow.want" "$T/vshow.json"
ok $? "vendor show --json: the vendor, its endpoint_list (archived too) and its rating, byte for byte"
cmp -s "$T/vlist.want" "$T/vlist.json"
ok $? "vendor list --json: each vendor with its rating, byte for byte, strings escaped as cJSON escapes them"
cmp -s "$T/eshow.want" "$T/eshow.txt"
ok $? "endpoint show: the record described, credentials with their organisation"

# A list cut short by a database error is an error, not fewer endpoints: with
# the last page of endpoints torn, the list read so far is not given as the whole.
torn="$T/torn.db"
"$AIVET" --db "$torn" vendor add Torn >/dev/null
for i in $(seq 1 40); do
	"$AIVET" --db "$torn" endpoint add Torn --name "e$i" --api openai --url "https://torn.example/v1/$i" \
	    --model "$(printf 'm%.0s' $(seq 1 200))" --context 10 >/dev/null || break
done
page=$(sqlite3 "$torn" "SELECT max(pageno) FROM dbstat WHERE name = 'endpoint' AND pagetype = 'leaf'")
ok "$([ "${page:-0}" -gt 2 ] && echo 0 || echo 1)" "40 endpoints fill leaf pages up to page $page"
size=$(sqlite3 "$torn" "PRAGMA page_size")
printf '\377\377\377\377\377\377\377\377' | dd of="$torn" bs="$size" seek=$((page - 1)) conv=notrunc 2>/dev/null
run --db "$torn" endpoint list --json
is "$rc:$out" "3:" "a torn endpoint page: endpoint list --json fails (exit 3) and prints no list"
is "$errout" "aivet: database: endpoint list: database disk image is malformed" "naming the list and SQLite's error"

# The same of the runs queued for workers that probe runs lists.
torn="$T/torn-queue.db"
"$AIVET" --db "$torn" vendor add Q >/dev/null
"$AIVET" --db "$torn" endpoint add Q --name e --api openai --url https://q.example/v1 --model m --context 10 >/dev/null
for i in $(seq 1 150); do "$AIVET" --db "$torn" probe queue Q/e >/dev/null || break; done
page=$(sqlite3 "$torn" "SELECT max(pageno) FROM dbstat WHERE name = 'probe_queue' AND pagetype = 'leaf'")
ok "$([ "${page:-0}" -gt 2 ] && echo 0 || echo 1)" "150 queued runs fill leaf pages up to page $page"
size=$(sqlite3 "$torn" "PRAGMA page_size")
printf '\377\377\377\377\377\377\377\377' | dd of="$torn" bs="$size" seek=$((page - 1)) conv=notrunc 2>/dev/null
run --db "$torn" probe runs Q
is "$rc:$out" "3:" "a torn queue page: probe runs fails (exit 3) and prints no list"
is "$errout" "aivet: database: queued runs: database disk image is malformed" "naming the list and SQLite's error"

# Columns as wide as their widest cell: a long endpoint name moves the columns
# after it for every row, and each row's URL starts where the heading's does.
run vendor add "Acme Artificial Intelligence Corporation International"
run endpoint add "Acme Artificial Intelligence Corporation International" --name production-eu-west-1 \
	--api azure-openai --url https://api.acme.example/openai --model m --context 1048576 --option api-version=2024-10-21
run endpoint list
is "$(printf '%s\n' "$out" | awk 'NR == 1 { at = index($0, "URL") } { print substr($0, at, 4) }' | sort -u | tr '\n' ' ')" \
	"URL http " "endpoint list: every row's URL starts under the heading's"
like "$(printf '%s\n' "$out" | grep production-eu-west-1)" \
	"^[0-9]+ +Acme Artificial Intelligence Corporation International/production-eu-west-1  azure-openai  1048576  active  https://api.acme.example/openai$" \
	"the longest cell is followed by two spaces"
done_testing
