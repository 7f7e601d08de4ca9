#!/bin/sh
# tests/cli/cli-suggest.sh: what aivet says to a near miss and to a database that
# is not whole. A mistyped option, vendor or questionnaire id is answered with
# the name meant; a database file copied without its write-ahead log (while
# another connection kept the log from being copied back) is named as such,
# not as an empty answer ("unknown assessment 1").
. "$TESTS_SRCDIR/lib/lib.sh"

"$AIVET" vendor add acme >/dev/null
"$AIVET" endpoint add acme --name prod --api openai --url https://api.acme.example/v1 --model m --context 131072 >/dev/null

# ---- options ----
run probe run acme/prod --dryrun
is "$rc" 2 "a mistyped option is a usage error"
is "$(printf '%s\n' "$errout" | head -1)" "aivet: unknown option '--dryrun': did you mean --dry-run?" \
	"and names the option meant"
run vendor list --jsn
is "$(printf '%s\n' "$errout" | head -1)" "aivet: unknown option '--jsn': did you mean --json?" \
	"a letter left out"
run vendor list --frobnicate
is "$(printf '%s\n' "$errout" | head -1)" "aivet: unknown option '--frobnicate'" \
	"nothing near: no guess"

# ---- subcommands other tools spell otherwise ----
run incident close 1
is "$rc:$errout" "2:aivet: incident: unknown subcommand 'close': did you mean 'incident status ID closed'? (see 'aivet incident --help')" \
	"closing an incident is a status: the command to type is named"
run probe list
is "$rc:$errout" "2:aivet: probe: unknown subcommand 'list': did you mean 'probe runs'? (see 'aivet probe --help')" \
	"probe list: the runs are listed by probe runs"
run vendor delete acme
is "$rc:$errout" "2:aivet: vendor: unknown subcommand 'delete': did you mean 'vendor archive NAME'? (see 'aivet vendor --help')" \
	"nothing is deleted: archive is named"
run probe rn acme/prod
is "$errout" "aivet: probe: unknown subcommand 'rn': did you mean 'probe run'? (see 'aivet probe --help')" \
	"a mistyped subcommand is still answered with the one meant"
run incident frobnicate
is "$errout" "aivet: incident: unknown subcommand 'frobnicate' (see 'aivet incident --help')" "nothing near: no guess"

# ---- ids ----
run assess start acme llm-isolation
is "$rc:$errout" "2:aivet: no questionnaire 'llm-isolation'; did you mean llm-inference-isolation? (see 'aivet questionnaire list')" \
	"a questionnaire id with a word left out is answered with the one it names"
run questionnaire show hipaa
is "$errout" "aivet: no questionnaire 'hipaa'; did you mean hipaa-ai-vendor? (see 'aivet questionnaire list')" \
	"and the start of an id"
run questionnaire show nothing-like-it
is "$errout" "aivet: unknown questionnaire 'nothing-like-it' (see 'aivet questionnaire list')" \
	"nothing near: no guess"
run vendor show acmee
is "$rc:$errout" "2:aivet: unknown vendor 'acmee'; did you mean acme? (see 'aivet vendor list')" \
	"a mistyped vendor is answered with the vendor meant"
run assess start acm llm-inference-isolation
is "$errout" "aivet: unknown vendor 'acm'; did you mean acme? (see 'aivet vendor list')" \
	"wherever a vendor is named"
run vendor show globex
is "$errout" "aivet: unknown vendor 'globex' (see 'aivet vendor list')" "nothing near: no guess"
"$AIVET" vendor add "Sim Health AI" >/dev/null
"$AIVET" endpoint add "Sim Health AI" --name prod --api openai --url https://api.sim.example/v1 \
	--model m --context 8192 >/dev/null
run probe run "Sim Helth AI/prod" --dry-run
is "$rc:$errout" "2:aivet: unknown endpoint 'Sim Helth AI/prod'; did you mean Sim Health AI/prod? (see 'aivet endpoint list')" \
	"a mistyped endpoint's vendor is answered with the endpoint meant"
run endpoint show "Sim Health AI/prd"
is "$rc:$errout" "2:aivet: unknown endpoint 'Sim Health AI/prd'; did you mean Sim Health AI/prod? (see 'aivet endpoint list')" \
	"and a mistyped endpoint name"
run endpoint edit acme/prdo --model x
is "$errout" "aivet: unknown endpoint 'acme/prdo'; did you mean acme/prod? (see 'aivet endpoint list')" \
	"wherever an endpoint is named (a swapped pair)"
run endpoint show acme/staging
is "$errout" "aivet: unknown endpoint 'acme/staging' (see 'aivet endpoint list')" "nothing near: no guess"
run endpoint show globex/prod
is "$errout" "aivet: unknown vendor 'globex' (see 'aivet vendor list')" \
	"an unknown vendor with no endpoint near is named as the vendor"

# ---- a database copied without its -wal ----
if [ "${AIVET_TEST_BACKEND:-sqlite}" = pg ]; then
	skip "a copied SQLite file: not on a server"
	skip "a copied SQLite file: not on a server"
	skip "a copied SQLite file: not on a server"
	done_testing
	exit 0
fi
# Another connection stays open, so the commits stay in the log (no checkpoint on exit).
mkfifo "$T/hold"
sqlite3 "$AIVET_DB" <"$T/hold" >/dev/null 2>&1 &
holder=$!
exec 9>"$T/hold"
echo "SELECT count(*) FROM vendor;" >&9
"$AIVET" assess start acme llm-inference-isolation >/dev/null
mkdir "$T/copy" "$T/whole"
cp "$AIVET_DB" "$AIVET_DB-shm" "$T/copy/"
cp "$AIVET_DB" "$AIVET_DB-shm" "$AIVET_DB-wal" "$T/whole/"
exec 9>&-
wait "$holder"
AIVET_DB=$T/copy/aivet.db run assess show 1
is "$rc" 3 "a database copied without its -wal file is refused"
like "$errout" "^aivet: database $T/copy/aivet.db: its write-ahead log $T/copy/aivet.db-wal is missing \(the file was copied without it\?\): [0-9]+ pages? of changes it held never reached the file; copy the -wal file with it, or copy a database with 'sqlite3 DB .backup COPY'$" \
	"named as such, not as an unknown assessment"
AIVET_DB=$T/whole/aivet.db run assess show 1
is "$rc:$(printf '%s\n' "$out" | head -1)" \
	"0:assessment 1: vendor acme, llm-inference-isolation@$(jq -e .version "$TESTS_SRCDIR/../questionnaires/llm-inference-isolation.json") (LLM inference isolation), round 1, draft" \
	"copied with its -wal, the same database reads whole"

# ---- question ids ----
"$AIVET" vendor add quest >/dev/null
qa=$("$AIVET" assess start quest llm-inference-isolation | sed -n 's/^assessment \([0-9]*\) started.*/\1/p')
like "$qa" '^[0-9]+$' "a round to answer"
snap=$(db_snapshot)
run assess answer "$qa" kv_cache_scop per_tenant
is "$rc:$errout" "2:aivet: questionnaire llm-inference-isolation@3 has no question 'kv_cache_scop'; did you mean kv_cache_scope? (see 'aivet questionnaire show llm-inference-isolation@3')" \
	"a mistyped question id is answered with the question meant"
run assess answer "$qa" nothing_like_any_question yes
is "$rc:$errout" "2:aivet: questionnaire llm-inference-isolation@3 has no question 'nothing_like_any_question' (see 'aivet questionnaire show llm-inference-isolation@3')" \
	"nothing near: no guess"
run assess answer "$qa" kv_cache_scope pertenant
is "$rc:$errout" "2:aivet: question kv_cache_scope: 'pertenant' is not one of per_request (Per request: no reuse between requests), per_tenant (Per tenant: reuse only within one customer account), shared (Shared across customers)" \
	"a choice refused lists the values to type, each with its label"
run assess answer "$qa" pd_disaggregated maybe
is "$rc:$errout" "2:aivet: question pd_disaggregated: 'maybe' is not one of yes, no" "a label that only capitalises its value is not repeated"
is "$(db_snapshot)" "$snap" "and nothing was written"

done_testing
