#!/bin/sh
# module-graph.sh: keeps the layers apart and the functions short. From the
# built objects it draws who calls whom between source files (a function one
# object needs, mapped to the file whose object defines it) and fails on any
# call against the layers of tests/unit/module-graph.layers (upward, or from one
# front end to the other; the domain's rooms are layers of their own, in one
# order), on a source file the table does not place, and on
# any loop of two or more files, printing each loop with one call per edge; it
# also fails on SQL in a TUI screen (a function's length is structure.sh's). What is known and waiting for its own rework is named, with the
# reason, in tests/unit/module-graph.allow; a loop that grows or a new one fails.
#
# By hand: tests/unit/module-graph.sh [BUILDDIR [SRCDIR]] prints the same TAP.
set -u
B=${1:-$(cd "$(dirname "${AIVET:?AIVET or BUILDDIR}")/.." && pwd)}
S=${2:-${TESTS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/..}
ALLOW=$S/tests/unit/module-graph.allow
LAYERS=$S/tests/unit/module-graph.layers
# tree_files: the tracked sources, not what an in-tree build left beside them.
. "$S/tests/lib/tree-lib.sh"
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
	# An object whose source was moved or removed is left over from an earlier build.
	[ -f "$S/$m" ] || continue
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

# Layers: each file's layer from the table, then every call between two
# files checked against what the caller's layer may call.
srcs=$(tree_files "$S" src probes sim | grep '\.c$')
# layer_check: reads "F FILE" for each source and "S D|U FILE SYMBOL" for each
# symbol; prints "unplaced FILE", "badlayer PATTERN LAYER", "unused PATTERN",
# and "upward|across CALLER CALLEE CALLER-LAYER CALLEE-LAYER SYMBOL".
layer_check() {
	awk -v table="$LAYERS" '
	function glob(f, g,   re) {
		re = g; gsub(/\./, "\\.", re); gsub(/\*/, "[^/]*", re)
		return f ~ ("^" re "$")
	}
	function layer_of(f,   i) {
		for (i = 1; i <= np; i++) if (glob(f, pat[i])) { used[i] = 1; return lay[i] }
		return ""
	}
	BEGIN {
		while ((getline line < table) > 0) {
			if (line ~ /^#/ || line !~ /[^ \t]/) continue
			nf = split(line, w, /[ \t]+/)
			if (w[1] == "layer") { known[w[2]] = 1; for (i = 3; i <= nf; i++) may[w[2], w[i]] = 1 }
			else { pat[++np] = w[1]; lay[np] = w[2] }
		}
		for (i = 1; i <= np; i++) if (!(lay[i] in known)) print "badlayer", pat[i], lay[i]
	}
	$1 == "F" { if (layer_of($2) == "") print "unplaced", $2; next }
	$2 == "D" { if (!($4 in def)) def[$4] = $3; next }
	$2 == "U" { need[++nn] = $3 " " $4 }
	END {
		for (i = 1; i <= np; i++) if (!used[i]) print "unused", pat[i]
		for (i = 1; i <= nn; i++) {
			split(need[i], p, " ")
			if (!(p[2] in def) || def[p[2]] == p[1]) continue
			a = layer_of(p[1]); b = layer_of(def[p[2]])
			if (a == "" || b == "" || a == b || (a, b) in may) continue
			print ((b, a) in may ? "upward" : "across"), p[1], def[p[2]], a, b, p[2]
		}
	}' | sort -u
}
layer_check=$( { printf '%s\n' "$srcs" | sed 's/^/F /'
	printf '%s\n' "$syms" | sed 's/^/S /'; } | layer_check)

# The domain's rooms are layers that call only down, in one order: each room
# may call exactly the rooms below it. A call up is found as for any layer: a
# report's function called by the signing room is named.
rooms='domain-dashboard domain-report domain-assess domain-incident domain-audit domain-vendor domain-sign'
order=$(awk '$1 == "layer" && $2 ~ /^domain-/ {
	r = ""; for (i = 3; i <= NF; i++) if ($i ~ /^domain-/) r = r " " $i; print $2 ":" r }' "$LAYERS")
want=$(set -- $rooms; while [ $# -gt 0 ]; do r=$1; shift; printf '%s:' "$r"; for b in "$@"; do printf ' %s' "$b"; done; echo; done)
[ "$(printf '%s\n' "$order" | sort)" = "$(printf '%s\n' "$want" | sort)" ] ||
	printf '%s\n' "$order" | sed 's/^/# module-graph.layers: /'
ok "$([ "$(printf '%s\n' "$order" | sort)" = "$(printf '%s\n' "$want" | sort)" ] && echo 0 || echo 1)" \
    "rooms of src/domain call only down, in the order $rooms"
planted=$(printf '%s\n' 'F src/domain/sign/a.c' 'F src/domain/report/b.c' 'F src/domain/assess/c.c' \
    'S D src/domain/report/b.c report_fn' 'S U src/domain/sign/a.c report_fn' \
    'S D src/domain/assess/c.c assess_fn' 'S U src/domain/report/b.c assess_fn' | layer_check | grep -E '^(upward|across) ')
[ "$planted" = "upward src/domain/sign/a.c src/domain/report/b.c domain-sign domain-report report_fn" ] ||
	printf '%s\n' "$planted" | sed 's/^/# planted: /'
ok "$([ "$planted" = "upward src/domain/sign/a.c src/domain/report/b.c domain-sign domain-report report_fn" ] \
    && echo 0 || echo 1)" "a planted call from the signing room up to the report's is found, one down is not"

# The table places every file, with layers it declares, and no line is left
# over from a file that is gone.
bad=$(printf '%s\n' "$layer_check" | awk '
	$1 == "unplaced" { print "# no layer for " $2 " in module-graph.layers" }
	$1 == "badlayer" { print "# " $2 " is placed in " $3 ", a layer the table does not declare" }
	$1 == "unused" { print "# module-graph.layers places " $2 ", which is no source file" }')
[ -z "$bad" ] || printf '%s\n' "$bad"
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "every source file has its layer"

# Calls against the layers, one line per pair of files with the calls made;
# an allowed pair ("call CALLER CALLEE") is shown with its reason.
calls=$(printf '%s\n' "$layer_check" | awk '$1 == "upward" || $1 == "across"' |
	awk '{ k = $1 " " $2 " " $3 " " $4 " " $5; if (k in s) s[k] = s[k] ", " $6; else { s[k] = $6; o[++n] = k } }
	END { for (i = 1; i <= n; i++) print o[i], s[o[i]] }')
nup=$(printf '%s\n' "$layer_check" | grep -c '^upward ')
nacross=$(printf '%s\n' "$layer_check" | grep -c '^across ')
bad=0
if [ -n "$calls" ]; then
	printf '%s\n' "$calls" | while read -r kind from to lf lt fns; do
		a=$(allowed call "$from $to")
		if [ -n "$a" ]; then
			echo "# known $kind call: $from ($lf) -> $to ($lt): $fns (${a#*  # })"
		else
			echo "# $kind call: $from ($lf) -> $to ($lt): $fns"
		fi
	done
	for pair in $(printf '%s\n' "$calls" | awk '{ print $2 "|" $3 }'); do
		[ -n "$(allowed call "${pair%|*} ${pair#*|}")" ] || bad=1
	done
fi
grep '^call ' "$ALLOW" 2>/dev/null | sed 's/  #.*//; s/^call //' | while IFS= read -r want; do
	printf '%s\n' "$calls" | awk '{ print $2, $3 }' | grep -qxF "$want" ||
		echo "# allowed call no longer made, its line in $(basename "$ALLOW") can go: $want"
done
echo "# calls against the layers: $nup upward, $nacross across; allow-list: $(grep -c '^[a-z]' "$ALLOW" 2>/dev/null) lines"
ok "$bad" "every call goes down a layer or within one, or is named in the allow-list"

# Screens read and write through the domain's functions: no statement or
# SQLite call in src/tui/ (a screen may hold the handle to pass it on).
sql=$(tree_files "$S" 'src/tui/*.c' | tree_grep "$S" -nE 'sqlite3_|SELECT|INSERT|UPDATE|DELETE FROM')
[ -z "$sql" ] || printf '%s\n' "$sql" | sed 's/^/# SQL in a screen: /'
ok "$([ -z "$sql" ] && echo 0 || echo 1)" "no SQL in the terminal UI's screens"

echo "1..$n"
[ "$failed" = 0 ]
