#!/bin/sh
# one-record.sh: one record per thing, and no hidden routes up, read from the
# sources. A tenant's secret lives in no public header (no struct there has a
# member named for a secret, and struct probe_env is the engine's own); core's
# struct aivet carries no front end's state (the command running, the terminal
# UI); the core names none of the domain's audit checks (the domain hands them
# in); credref.c includes no minisign.h; and an endpoint's credential rows are
# read by one function, credential_list_load in src/vendors/credref.c; the
# report record, report.json, is written once, by report_doc_to_json, and what
# the bundle writes beside it (VERIFY.txt, the signature's trusted comment) and
# the export's row read the typed record, never report.json by key; the
# record's words that have an enum are held as it, a claim's status too (in
# struct claim and an answer of the report), and a claim status's words are
# spelt once, in claim_status_name's table. Each rule's check is first run on
# a file made to break it, so that a check which finds nothing cannot pass for
# one that looks.
. "$TESTS_SRCDIR/lib/lib.sh"
top=$(cd "$TESTS_SRCDIR/.." && pwd)
cd "$top" || exit 1

# secret_members FILE...: "FILE:LINE: MEMBER" for each member of a struct whose
# name speaks of a secret (a file's path, *_file, is only where one is; a
# function pointer's parameters, inside its parentheses, are no members).
secret_members() {
	awk '
		/^[ \t]*struct[ \t]+[A-Za-z_0-9]+[ \t]*\{/ { depth = 1; paren = 0; next }
		depth > 0 {
			t = $0; sub(/\/\*.*/, "", t); sub(/\/\/.*/, "", t); s = ""
			for (i = 1; i <= length(t); i++) {
				c = substr(t, i, 1)
				if (c == "(") paren++
				else if (c == ")") paren--
				else if (paren == 0) s = s c
			}
			n = split(s, w, /[^A-Za-z_0-9]+/)
			for (i = 1; i <= n; i++)
				if (w[i] ~ /secret/ && w[i] !~ /_file$/)
					printf "%s:%d: %s\n", FILENAME, FNR, w[i]
			if (s ~ /\}/) depth = 0
		}' "$@"
}
mkdir -p "$T/h"
printf '%s\n' 'struct x {' '	char *tenant_secret[4];  /* the secret */' '	char *secret_key_file;' \
    '	int (*auth)(const char *secret,' '	    size_t secret_len);' '};' 'int f(char **secret);' > "$T/h/x.h"
is "$(secret_members "$T/h/x.h" | sed "s|$T/||")" "h/x.h:2: tenant_secret" \
    "the secret check names a secret member by file and line, not a path to one or a parameter"
bad=$(secret_members $(tree_files "$top" 'include/aivet/*.h'))
[ -z "$bad" ] || printf '%s\n' "$bad" | sed 's/^/# /'
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "no struct of a public header has a member named for a secret"
is "$(grep -l 'struct probe_env {' include/aivet/*.h)" "" "struct probe_env is defined in no public header"
is "$(grep -l 'struct probe_env {' src/engine/*.h)" "src/engine/probe-env.h" \
    "struct probe_env is defined once, in the engine's private probe-env.h"
is "$(grep -c 'tenant_secret\[' src/engine/probe-env.h)" 1 "the engine's env holds the tenants' secrets"
is "$(grep -l 'struct minisign_sec {' include/aivet/*.h src/domain/sign/*.c | tr '\n' ' ')" \
    "src/domain/sign/minisign.c " "a signing key's bytes are minisign.c's own: struct minisign_sec is opaque in minisign.h"

# members STRUCT FILE: the member names of one struct.
members() {
	awk -v s="$1" '
		$0 ~ "^struct " s " \\{" { in_s = 1; next }
		in_s && /^\};/ { in_s = 0 }
		in_s && /^[ \t]*(\/\*|\*)/ { next }
		in_s {
			t = $0; sub(/\/\*.*/, "", t); sub(/;.*/, "", t); sub(/\[.*/, "", t)
			if (t ~ /\(\*/) { sub(/\).*/, "", t); sub(/.*\(\*/, "", t) } else sub(/.*[ \t*]/, "", t)
			if (t != "") print t
		}' "$2"
}
got=$(members aivet include/aivet/av.h | tr '\n' ' ')
is "$got" "db_path db_named db actor progname is_demo on_open " "struct aivet's members are read (db_path, actor, on_open)"
unlike "$got" "(^| )(cmd|cmd_group|cmd_path|tui)( |$)" "struct aivet carries no command state and no terminal UI"
got=$(members cli src/cli/cli.h | tr '\n' ' ')
is "$got" "av cmd cmd_group cmd_path tui " "the command line's struct cli holds them, struct aivet first"

# The core hands the checks nothing by name: audit_checks[] is the domain's.
is "$(tree_files "$top" 'src/core/*.[ch]' include/aivet/audit.h | tree_grep "$top" -lw audit_checks)" "" \
    "the core names no audit_checks"
is "$(tree_files "$top" 'src/domain/*/*.c' | tree_grep "$top" -lw 'audit_checks\[\] = {')" "src/domain/audit/audit-checks.c" \
    "the domain defines audit_checks[]"
is "$(grep -c 'audit_verify_with(db, audit_checks' src/domain/audit/audit-checks.c)" 1 \
    "the domain hands them to the core's audit_verify_with"
is "$(grep -c '#include "minisign.h"' src/vendors/credref.c)" 0 "credref.c does not include minisign.h"
is "$(grep -c '^credref_read(' src/vendors/credref.c)" 1 "credref.c is read (it defines credref_read)"

# cred_reads FILE...: "FILE:LINE" for each statement that reads a credential's
# reference from the credential table (a count, an id by label or a delete reads none).
cred_reads() {
	grep -n 'FROM credential' "$@" | grep -v 'DELETE FROM credential\|SELECT id FROM credential\|count(\*) FROM credential' |
	    cut -d: -f1,2
}
printf '%s\n' 'x = db_prepare(db, err, "SELECT label, ref FROM credential WHERE endpoint_id = ?");' \
    'y = db_int(db, &id, err, "SELECT id FROM credential WHERE endpoint_id = ? AND label = ?");' \
    'z = "SELECT max(1, (SELECT count(*) FROM credential c WHERE c.endpoint_id = e.id))";' > "$T/h/r.c"
is "$(cred_reads "$T/h/r.c" /dev/null | sed "s|$T/||")" "h/r.c:1" "the reader check names a second reader, not a count or a lookup"
got=$(cred_reads $(tree_files "$top" src probes | grep '\.c$') | cut -d: -f1)
is "$got" "src/vendors/credref.c" "one statement reads credentials, in src/vendors/credref.c"
is "$(grep -c '^credential_list_load(' src/vendors/credref.c)" 1 "it is credential_list_load"
n=$(grep -l 'credential_list_load(' src/vendors/endpoint-record.c src/domain/endpoint.c | wc -l)
is "$n" 2 "the endpoint record and the URL confirmation call it"
is "$(grep -c 'endpoint_get(db, endpoint_id, &e, err)' src/engine/probe-run.c)" 1 \
    "the check before a run reads the endpoint record"
is "$(grep -c 'endpoint_get_active(env->db, endpoint_id, &env->ep, err)' src/engine/probe-env.c)" 1 \
    "the run's environment reads the endpoint record"

# One endpoint record: struct endpoint, defined once (the vendors layer), no other.
is "$(tree_files "$top" 'include/aivet/*.h' 'src/*/*.h' | tree_grep "$top" -l '^struct endpoint {')" "include/aivet/provider.h" \
    "struct endpoint is defined once, in the vendors layer's provider.h"
is "$(tree_files "$top" src probes include bench | tree_grep "$top" -l 'endpoint_info' | wc -l)" 0 "no second endpoint record (endpoint_info)"
is "$(grep -c 'ENDPOINT_SELECT' src/vendors/endpoint-record.c)" 3 \
    "endpoint_get and endpoint_list_load read the row the one way (ENDPOINT_SELECT)"

# The report record is written once: report_doc_to_json (report-json.c) builds
# report.json from the typed record, the time-stamp's request a field of it,
# and struct report holds it const, so another writer must cast it to
# writable: the one cast is report_free's. The write path (the export, the
# record's writer, the bundle's writer, the TSA's stamping) reads no document
# by key: VERIFY.txt, the trusted comment and the report row read the record.
# key_reads FILE...: "FILE:LINE" of each read of a document by key.
key_reads() {
	grep -nE 'json_get_|cJSON_GetObjectItem|cJSON_GetArrayItem|cJSON_HasObjectItem|cJSON_ArrayForEach' "$@" | cut -d: -f1,2
}
# record_writes FILE...: "FILE:LINE" of each cast of a report's json to writable
# and of each write into one.
record_writes() {
	grep -nE '\(cJSON \*\) *[a-z_]+(->|\.)json\b|cJSON_(Add|Replace|Insert|Delete[A-Za-z]*From|Detach)[A-Za-z]*\( *[a-z_]+(->|\.)json\b' \
	    "$@" | cut -d: -f1,2
}
printf '%s\n' '/* report.json is written by report-json.c: r->json names it */' \
    'cJSON_AddStringToObject((cJSON *)r->json, "x", "y");' 'cJSON_AddItemToObject(r.json, "time_stamp", ts);' \
    'id = json_get_str(r->json, "report_id");' 'cJSON_ArrayForEach(a, cJSON_GetObjectItem(rep, "assessments")) {' \
    'text = report_json_text(r->json);' > "$T/h/w.c"
is "$(record_writes "$T/h/w.c" /dev/null | sed "s|$T/||" | tr '\n' ' ')" "h/w.c:2 h/w.c:3 " \
    "the writer check names a cast to writable and a write into the record, not a comment or a print"
is "$(key_reads "$T/h/w.c" /dev/null | sed "s|$T/||" | tr '\n' ' ')" "h/w.c:4 h/w.c:5 " \
    "the read check names a read by key and a walk by key"
is "$(grep -c '^	const cJSON \*json; ' include/aivet/report.h)" 1 "struct report holds the record const"
got=$(record_writes $(tree_files "$top" src probes | grep '\.c$'))
is "$(printf '%s\n' "$got" | cut -d: -f1)" "src/domain/report/report.c" \
    "one cast of the record to writable, in report.c"
is "$(grep -c '^	cJSON_Delete((cJSON \*)r->json);' src/domain/report/report.c)" 1 "it is report_free's, to free it"
is "$(tree_files "$top" src probes | grep '\.c$' | tree_grep "$top" -l 'report_doc_to_json(' | tr '\n' ' ')" \
    "src/domain/report/report-json.c src/domain/report/report.c " "report_doc_to_json is called once, by report_collect"
is "$(grep -c 'report_doc_to_json(' src/domain/report/report.c)" 1 "once"
is "$(grep -c 'cJSON \*report' include/aivet/tsa.h)" 0 "the TSA's functions take no report.json"
is "$(grep -c '"time_stamp"' src/domain/report/report-json.c)" 1 "the time-stamp's request is a field the record's writer writes"
write_path="src/domain/report/report-export.c src/domain/report/report-json.c src/domain/report/bundle-write.c
src/domain/report/tsa.c"
for f in $write_path; do
	ok "$([ -f "$f" ] && grep -q '^[a-z_]*(' "$f" && echo 0 || echo 1)" "$f: on the write path, read"
done
got=$(key_reads $write_path 2>&1)
[ -z "$got" ] || printf '%s\n' "$got" | sed 's/^/# /'
is "$got" "" "the write path reads no document by key"
is "$(tree_files "$top" src probes | grep '\.c$' | tree_grep "$top" -lE '(put|write_file[a-z_]*)\(.*"report\.json"')" \
    "src/domain/report/bundle-write.c" "one file writes report.json to disk: the bundle's writer"
is "$(grep -c 'put(tmp, "report.json", text' src/domain/report/bundle-write.c)" 1 "once, the record's text"

# The record's words that have an enum are held as the enum and named when
# written: a run's status (enum probe_run_state), a round's (enum
# assessment_status), a probe's verdict (enum probe_verdict), a finding's
# severity (enum severity), a round's rating and approved rating (enum rating),
# the risks (enum risk_level) and an answer's claim status (enum claim_status).
# word_strings FILE...: "FILE:LINE" of each string member named for one of them.
word_strings() {
	grep -nE '^[[:space:]]*(const )?char \*[^;(]*\b(status|verdict|severity|rating|approved_rating|risk|stated_risk|worst_risk|claim)\b' \
	    "$@" | cut -d: -f1,2
}
printf '%s\n' 'struct x {' '	char *probe, *verdict;' '	enum rating rating;' '	char *status_note;' \
    '	const char *rating_rule;' '	char *worst_risk;  /* the worst */' '	char *note, *claim;' \
    '	enum claim_status claim;' '	char *claim_text;' '};' > "$T/h/doc.h"
is "$(word_strings "$T/h/doc.h" /dev/null | sed "s|$T/||" | tr '\n' ' ')" "h/doc.h:2 h/doc.h:6 h/doc.h:7 " \
    "the word check names a verdict, a risk and a claim held as strings, not an enum or a longer name"
got=$(word_strings src/domain/report/report-doc.h)
[ -z "$got" ] || printf '%s\n' "$got" | sed 's/^/# /'
is "$got" "" "the report record holds no status, verdict, severity, rating, risk or claim as a string"
is "$(grep -cE '^	enum (probe_run_state state|probe_verdict verdict|severity severity|rating rating|assessment_status status|claim_status claim);' \
    src/domain/report/report-doc.h)" 6 "it holds them as enums"

# A claim's status is the claims' record too (report.json's claims, assess
# show): struct claim holds it as enum claim_status, and the words are one
# table, claims.c's claim_status_name. struct_only NAME FILE: FILE with every
# line outside struct NAME blanked, so that a check names FILE's lines.
struct_only() {
	awk -v s="$1" '$0 ~ "^struct " s " \\{" { in_s = 1 } { print in_s ? $0 : "" } in_s && /^\};/ { in_s = 0 }' "$2"
}
printf '%s\n' 'struct claim_probe {' '	char *verdict;' '};' 'struct claim {' '	char *question_id;' \
    '	char *status;                 /* confirmed, contradicted */' '};' 'struct other {' '	char *status;' '};' \
    > "$T/h/claim.h"
is "$(struct_only claim "$T/h/claim.h" | word_strings - /dev/null | tr '\n' ' ')" "(standard input):6 " \
    "the check names a claim's status held as a string, not another struct's member"
got=$(struct_only claim include/aivet/assess.h | word_strings - /dev/null | sed 's|^(standard input)|include/aivet/assess.h|')
[ -z "$got" ] || printf '%s\n' "$got" | sed 's/^/# /'
is "$got" "" "struct claim holds no status as a string"
is "$(struct_only claim include/aivet/assess.h | grep -cE '^	enum claim_status status;')" 1 \
    "it holds it as enum claim_status"
# So is the verdict of each probe a claim names (report.json's claims[].probes).
is "$(struct_only claim_probe "$T/h/claim.h" | word_strings - /dev/null | tr '\n' ' ')" "(standard input):2 " \
    "the check names a claim probe's verdict held as a string"
got=$(struct_only claim_probe include/aivet/assess.h | word_strings - /dev/null | sed 's|^(standard input)|include/aivet/assess.h|')
[ -z "$got" ] || printf '%s\n' "$got" | sed 's/^/# /'
is "$got" "" "struct claim_probe holds no verdict as a string"
is "$(struct_only claim_probe include/aivet/assess.h | grep -cE '^	enum probe_verdict verdict;')" 1 \
    "it holds it as enum probe_verdict"
# words FILE...: "FILE:LINE" of each line that spells a claim status as a
# string: a second table, or a comparison with one.
words() {
	grep -nE '"(confirmed|contradicted|untested|consistent)"' "$@" | cut -d: -f1,2
}
printf '%s\n' 'if (strcmp(st, "contradicted") == 0)' '/* "confirmed" in a comment */' \
    'snprintf(out, n, "%d contradicted", v);' > "$T/h/s.c"
is "$(words "$T/h/s.c" /dev/null | sed "s|$T/||" | tr '\n' ' ')" "h/s.c:1 h/s.c:2 " \
    "the spelling check names a claim status as a string, not one inside a sentence"
got=$(words $(tree_files "$top" src probes | grep '\.[ch]$') include/aivet/*.h)
is "$got" "src/domain/assess/claims.c:$(grep -n '^	"confirmed", "contradicted", "untested", "consistent"$' \
    src/domain/assess/claims.c | cut -d: -f1)" "the words are spelt once, in claims.c's table of claim_status_name"

done_testing
