#!/bin/sh
# module-graph.sh: keeps the layers apart and the functions short. From the
# built objects it draws who calls whom between source files (a function one
# object needs, mapped to the file whose object defines it) and fails on any
# loop of two or more files, printing each loop with one call per edge; it
# also fails on any function whose body is over 150 lines, and on SQL in a
# TUI screen. What is known and waiting for its own rework is named, with the
# reason, in tests/module-graph.allow; a loop that grows or a new one fails.
#
# By hand: tests/module-graph.sh [BUILDDIR [SRCDIR]] prints the same TAP.
set -u
B=${1:-$(cd "$(dirname "${AIVET:?AIVET or BUILDDIR}")/.." && pwd)}
S=${2:-${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/..}
ALLOW=$S/tests/module-graph.allow
MAXLEN=150
n=0
failed=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

# One line per symbol: "D module symbol" for a function defined, "U module
# symbol" for one needed. Data is left out: a table that names entries (the
# commands, the providers, the probes, the audit checks) is how a lower
# module is handed what it runs, not a call back up. An object is named TARGET-BASE.o beside its source (Automake),
# so the module is the object's directory and BASE.c; a source built into
# two targets is one module.
objs=$(cd "$B" && find src probes sim -name '*.o' 2>/dev/null | grep -v '/embed-embed\.o$' | sort)
if ! command -v nm >/dev/null 2>&1; then
	echo "1..0 # SKIP nm (binutils) is not installed"
	exit 0
fi
if [ -z "$objs" ]; then
	echo "1..0 # SKIP no objects under $B"
	exit 0
fi
syms=$(cd "$B" && for o in $objs; do
	m=$(dirname "$o")/$(basename "$o" .o | sed 's/^[^-]*-//').c
	nm -P "$o" | awk -v m="$m" '
		$2 == "U" { print "U", m, $1; next }
		$2 ~ /^[TW]$/ { print "D", m, $1 }'
done | sort -u)

# Loops: the strongly connected parts of the call graph (reachability by
# closure is plenty for a hundred files).
loops=$(printf '%s\n' "$syms" | awk '
	$1 == "D" { if (!($3 in def)) def[$3] = $2; mod[$2] = 1; next }
	$1 == "U" { need[++nn] = $2 SUBSEP $3; mod[$2] = 1 }
	END {
		for (m in mod) { id[m] = ++k; name[k] = m }
		for (i = 1; i <= nn; i++) {
			split(need[i], p, SUBSEP)
			if (!(p[2] in def) || def[p[2]] == p[1]) continue
			a = id[p[1]]; b = id[def[p[2]]]
			if (!((a, b) in r)) { r[a, b] = 1; via[a, b] = p[2] }
		}
		for (x = 1; x <= k; x++)
			for (i = 1; i <= k; i++) if ((i, x) in r)
				for (j = 1; j <= k; j++) if ((x, j) in r) r[i, j] = 1
		for (i = 1; i <= k; i++) {
			if (done[i] || !((i, i) in r)) continue
			members = name[i]; cnt = 1; done[i] = 1
			for (j = 1; j <= k; j++)
				if (j != i && ((i, j) in r) && ((j, i) in r)) { members = members " " name[j]; done[j] = 1; cnt++ }
			if (cnt < 2) continue
			n2 = split(members, ms, " ")
			for (a = 1; a <= n2; a++) for (b = a + 1; b <= n2; b++)
				if (ms[b] < ms[a]) { t = ms[a]; ms[a] = ms[b]; ms[b] = t }
			line = ms[1]; for (a = 2; a <= n2; a++) line = line " " ms[a]
			edges = ""
			for (a = 1; a <= n2; a++) for (b = 1; b <= n2; b++)
				if (a != b && ((id[ms[a]], id[ms[b]]) in via))
					edges = edges "\t" ms[a] " -> " ms[b] " (" via[id[ms[a]], id[ms[b]]] ")"
			print line edges
		}
	}' | sort)

allowed() { # KIND TEXT: the allow-list line for it, reason included
	grep -v '^#' "$ALLOW" 2>/dev/null | awk -v k="$1" -v t="$2" -F '  # ' '
		{ split($1, f, " "); w = f[2]; for (i = 3; i in f; i++) w = w " " f[i] }
		f[1] == k && w == t { print; exit }'
}

if [ -z "$loops" ]; then
	ok 0 "no loops between modules"
else
	printf '%s\n' "$loops" | while IFS= read -r l; do
		members=${l%%	*}
		a=$(allowed cycle "$members")
		if [ -n "$a" ]; then
			echo "# known loop: $members (${a#*  # })"
		else
			echo "# loop: $members"
			printf '%s\n' "$l" | tr '\t' '\n' | tail -n +2 | sed 's/^/#   /'
			echo NEW
		fi
	done > "${TMPDIR:-/tmp}/module-graph.$$"
	grep -v '^NEW$' "${TMPDIR:-/tmp}/module-graph.$$"
	if grep -q '^NEW$' "${TMPDIR:-/tmp}/module-graph.$$"; then r=1; else r=0; fi
	rm -f "${TMPDIR:-/tmp}/module-graph.$$"
	ok "$r" "no loops between modules but the known ones"
fi

# An allowed loop that is gone: say so, so that its line can go too.
grep '^cycle ' "$ALLOW" 2>/dev/null | sed 's/  #.*//; s/^cycle //' | while IFS= read -r want; do
	printf '%s\n' "$loops" | cut -f1 | grep -qxF "$want" ||
		echo "# allowed loop no longer found, its line in $(basename "$ALLOW") can go: $want"
done

# Long functions: a body between a brace at column 0 and the next closing
# brace at column 0, named by the last identifier before "(" above it.
long=$(cd "$S" && find src probes sim -name '*.c' 2>/dev/null | sort | xargs awk -v max="$MAXLEN" '
	FNR == 1 { open = 0; sig = "" }
	/^[A-Za-z_].*\(/ && !open { sig = $0 }
	/^\{/ { open = FNR; next }
	/^\}/ && open {
		len = FNR - open - 1
		fn = sig; sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn)
		if (len > max) print FILENAME ":" fn, len
		open = 0; sig = ""
	}' | sort -k2,2nr)
bad=0
if [ -n "$long" ]; then
	printf '%s\n' "$long" | while read -r where len; do
		if [ -n "$(allowed long "${where%%:*}")" ]; then
			echo "# known long function: $where $len lines"
		else
			echo "# function over $MAXLEN lines: $where $len lines"
		fi
	done
	for where in $(printf '%s\n' "$long" | cut -d' ' -f1); do
		[ -n "$(allowed long "${where%%:*}")" ] || bad=1
	done
fi
ok "$bad" "no function over $MAXLEN lines but in the files named"

# Screens read and write through the domain's functions: no statement or
# SQLite call in src/tui/ (a screen may hold the handle to pass it on).
sql=$(cd "$S" && grep -HnE 'sqlite3_|SELECT|INSERT|UPDATE|DELETE FROM' src/tui/*.c 2>/dev/null)
[ -z "$sql" ] || printf '%s\n' "$sql" | sed 's/^/# SQL in a screen: /'
ok "$([ -z "$sql" ] && echo 0 || echo 1)" "no SQL in the terminal UI's screens"

echo "1..$n"
[ "$failed" = 0 ]
