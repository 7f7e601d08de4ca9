#!/bin/sh
# tui-fit.sh: what the TUI shows at its design sizes, 80x24 and 120x40, and
# that it says what the command line says. The dashboard cuts a long vendor
# name in the middle (its start and end kept) before the next column, never the rating
# or the score; a question its depends_on hides refuses an answer before any
# dialog, in assess answer's words; the assessment's detail pane grows into
# the rows the lists leave empty, so a question's guidance is not cut; the
# claim word beside an answer is assess show's; the dashboard gives a long
# incident title the columns that are free and cuts it only past them, never the clock, the
# incident's state or when its clock is due.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"
D="$TESTS_SRCDIR/data"

export AIVET_NOW=2026-11-30T00:00:00Z
TUI_ENV="AIVET_NOW=$AIVET_NOW"
V="Northwind Clinical Inference Services"
"$AIVET" vendor add "$V" >/dev/null
"$AIVET" vendor add acme >/dev/null
"$AIVET" db timezone UTC >/dev/null
"$AIVET" questionnaire import "$D/scoring-questionnaire.json" >/dev/null
# 1: a round waiting for review; 2: a draft of the bundled questionnaire.
"$AIVET" assess start "$V" scoring-test >/dev/null
"$AIVET" assess answer 1 gate no >/dev/null
"$AIVET" assess answer 1 notify 24h >/dev/null
"$AIVET" assess submit 1 >/dev/null
"$AIVET" assess start acme llm-inference-isolation >/dev/null
"$AIVET" endpoint add acme --name prod --api openai --url https://api.acme.example/v1 --model m \
	--context 8192 >/dev/null
printf 'signed BAA, section 4\n' > "$T/baa.txt"
"$AIVET" assess answer 2 kv_cache_scope per_tenant --note "per the vendor's security page" \
	--evidence "$T/baa.txt" >/dev/null

# The lines of one section of the screen: from its title to the blank line after it.
section() {
	tui_screen | sed 's/[[:space:]]*$//' | awk -v t="== $1 ==" 'index($0, t) { on = 1; next } on && $0 == "" { exit } on'
}

# ---- the dashboard: a name cut with an ellipsis, the rating and score whole ----
for size in 80x24 120x40; do
	tui_start "$size"
	tui_wait "== Vendors by rating =="; ok $? "$size: the dashboard"
	section "Vendors by rating" > "$T/vendors-$size.txt"
	section "Assessments waiting for review" > "$T/reviews-$size.txt"
	tui_stop
done
is "$(cat "$T/vendors-80x24.txt")" "> ?  Northwin…Services not-assessed no final round; in review round 1 acceptable
  ?  acme              not-assessed no final round; draft round 1 incomplete" \
	"80x24: the name gives way, cut in the middle (its start and end kept); the ratings are whole"
is "$(cat "$T/vendors-120x40.txt")" "> ?  Northwind Clinical Inference Services not-assessed no final round; in review round 1 acceptable
  ?  acme                                  not-assessed no final round; draft round 1 incomplete" \
	"120x40: the name whole where the columns are free"
is "$(cat "$T/reviews-80x24.txt")" "  ?  #1    Northwind Clin… scoring-test        round 1  since 2026-11-30T00:00" \
	"80x24: the review queue's vendor gives way to the round and the time it waits"
is "$(cat "$T/reviews-120x40.txt")" "  ?  #1    Northwind Clinical…  scoring-test             round 1  since 2026-11-30T00:00" \
	"120x40: the vendor cut at 20 columns ends in an ellipsis, not in the next column"

# ---- a question its depends_on hides: refused before any dialog, in assess answer's words ----
want=$("$AIVET" assess answer 2 truncation_signalled yes 2>&1 >/dev/null | sed 's/^aivet: //')
is "$want" "question truncation_signalled is not asked with the current answers: it is asked only when over_limit_behaviour is truncate (over_limit_behaviour is unanswered)" \
	"assess answer refuses a hidden question, naming the answer it depends on"
# status: the status line's rows (from "error: " to the end), joined where they wrapped.
status() { tui_screen | sed 's/[[:space:]]*$//' | awk '/^error: / { on = 1 } on' | paste -sd' ' -; }
for size in 80x24 120x40; do
	tui_start "$size"
	tui_wait "Dashboard"
	tui_keys L; tui_wait "Vendors"
	tui_keys /; tui_type acme; tui_keys Enter; tui_wait "filter: acme"
	tui_keys Enter; tui_wait "Vendor:      acme"
	tui_keys s; tui_wait "Assessments of acme"
	tui_keys Enter; tui_wait "Assessment 2 (draft)"
	tui_keys /; tui_type truncation_signalled; tui_keys Enter
	tui_wait "Asked only when over_limit_behaviour is truncate"
	tui_keys Enter
	tui_wait "error: question truncation_signalled"; ok $? "$size: Enter on a hidden question is refused"
	is "$(status)" "error: $want" "$size: in assess answer's words"
	unlike "$(tui_screen)" "Enter picks, Esc cancels" "$size: before any dialog opens"
	tui_stop
done

# ---- the detail pane grows into the rows the lists leave empty ----
# detail: the pane under the lists, from the rule to the hint line.
detail() { tui_screen | sed 's/[[:space:]]*$//' | awk '/^──/ { on = 1; next } /^Enter open|^Tab pane/ { exit } on'; }
for size in 120x40 80x24; do
	tui_start "$size"
	tui_wait "Dashboard"
	tui_keys L; tui_wait "Vendors"
	tui_keys /; tui_type acme; tui_keys Enter; tui_wait "filter: acme"
	tui_keys Enter; tui_wait "Vendor:      acme"
	tui_keys s; tui_wait "Assessments of acme"
	tui_keys Enter; tui_wait "Assessment 2 (draft)"
	tui_keys Tab
	tui_wait "kv_cache_scope (required): How are KV caches"; ok $? "$size: the first question in full"
	detail | grep -v '^$' > "$T/detail-$size.txt"
	tui_screen | sed 's/[[:space:]]*$//' | grep -F 'kv_cache_scope ' | head -1 | sed 's/.* //' > "$T/word-$size.txt"
	tui_stop
done
is "$(cat "$T/detail-120x40.txt")" " kv_cache_scope (required): How are KV caches and prefix (prompt) caches scoped?
 Answer: per_request|per_tenant|shared   [low]
 Untested on acme/prod: probe canary has no completed run on acme/prod
 Note: per the vendor's security page
 Evidence: baa.txt (22 bytes, sha256 67b2f1bfb6f0)
 per_request: nothing is reused between requests. per_tenant: reuse only within one customer account (cache keys
 include the tenant). shared: a prefix computed for one customer can serve another." \
	"120x40: the question in full, its claim, note, evidence and the whole of its guidance"
is "$(cat "$T/detail-80x24.txt")" " kv_cache_scope (required): How are KV caches and prefix (prompt) caches
 scoped?
 Answer: per_request|per_tenant|shared   [low]
 Untested on acme/prod: probe canary has no completed run on acme/prod
 Note: per the vendor's security page
 Evidence: baa.txt (22 bytes, sha256 67b2f1bfb6f0)
 per_request: nothing is reused between requests. per_tenant: reuse only within
 one customer account (cache keys include the tenant). shared: a prefix
 computed for one customer can serve another." \
	"80x24: the same, wrapped: the pane takes the rows the lists leave"

# ---- the claim word beside an answer is assess show's ----
show_word=$("$AIVET" assess show 2 | sed -n 's/^  kv_cache_scope  *per_tenant  *acme\/prod  *//p')
is "$show_word" "untested" "assess show: the claim is untested (no run yet)"
is "$(cat "$T/word-80x24.txt") $(cat "$T/word-120x40.txt")" "$show_word $show_word" \
	"80x24 and 120x40: the TUI's claim word is assess show's"

# ---- the dashboard's incidents: a long title cut with an ellipsis and a space ----
# The HIPAA notice to individuals long overdue: its when is the longest the
# incidents show, and at 80 columns the title gives way to it.
"$AIVET" incident open acme --title "Prompt logs of every tenant exposed in a shared bucket" \
	--discovered 2026-07-01T12:00:00Z --phi yes --individuals 40 --vendor-sla none --eu-data no >/dev/null
for size in 80x24 120x40; do
	tui_start "$size"
	tui_wait "== Open incidents =="; ok $? "$size: the dashboard with an open incident"
	section "Notification clocks" > "$T/clocks-$size.txt"
	section "Open incidents" > "$T/incidents-$size.txt"
	tui_stop
done
# Before, a title was cut at 20 bytes with nothing to say so ("Prompt logs of every new"),
# and at 80 columns the incident's row lost the end of its due time.
is "$(cat "$T/clocks-80x24.txt")" "> !! #1   Prompt logs of every t… HIPAA notice to individuals OVERDUE by 91d 12h" \
	"80x24: the clock's title takes the columns there are, cut with an ellipsis; the time overdue whole"
is "$(cat "$T/incidents-80x24.txt")" "  !! #1   Prompt logs of eve… new           hipaa-individuals OVERDUE by 91d 12h" \
	"80x24: the incident's title gives way, so its state and due time are whole"
is "$(cat "$T/clocks-120x40.txt")" "> !! #1   Prompt logs of every tenant exposed in a shared bucket HIPAA notice to individuals OVERDUE by 91d 12h" \
	"120x40: the clock's title whole where the columns are free (not cut at 20)"
is "$(cat "$T/incidents-120x40.txt")" "  !! #1   Prompt logs of every tenant exposed in a shared bucket new           hipaa-individuals OVERDUE by 91d 12h  [ac" \
	"120x40: the incident's title whole, the state and due time after it"
done_testing
