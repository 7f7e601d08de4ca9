#!/bin/sh
# one-record.sh: one record per thing, and no hidden routes up, read from the
# sources. A tenant's secret lives in no public header (no struct there has a
# member named for a secret, and struct probe_env is the engine's own); core's
# struct aivet carries no front end's state (the command running, the terminal
# UI); the core names none of the domain's audit checks (the domain hands them
# in); credref.c includes no minisign.h; and an endpoint's credential rows are
# read by one function, credential_list_load in src/vendors/credref.c. Each
# rule's check is first run on a file made to break it, so that a check which
# finds nothing cannot pass for one that looks.
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

done_testing
