#!/bin/sh
# public-headers.sh: the two front ends stand on the library's public headers.
# A file of the command line (src/cli/) or the terminal UI (src/tui/) may
# include system headers, the public headers ("aivet/NAME.h", include/aivet/)
# and the headers of its own folder, nothing else: not a private header of
# the library and not the other front end's. main.c, which picks a front end,
# may include the public headers and the front ends' own headers. A public
# header includes only system headers and its siblings in include/aivet/, and
# no file of the library includes a front end's header. Makefile.am compiles
# the front ends with -I include alone, so the compiler refuses most of this
# already; this names the file and line, and catches what a path relative to
# the file would let through ("../core/db-impl.h"). Nor does a front end read a
# domain result by key: it calls none of cJSON's or aivet's key readers.
. "$TESTS_SRCDIR/lib/lib.sh"
top=$(cd "$TESTS_SRCDIR/.." && pwd)
cd "$top" || exit 1

# includes FILE...: "FILE LINE NAME" for each #include "NAME" or <NAME>,
# the brackets kept so that a system header shows as one.
includes() {
	awk '/^[ \t]*#[ \t]*include[ \t]*["<]/ {
		s = $0; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", s); sub(/[ \t].*/, "", s)
		print FILENAME, FNR, s
	}' "$@"
}

# front FOLDER: the lines of the front end in FOLDER that include anything else.
front() {
	includes $(tree_files "$top" "$1/*.[ch]") | while read -r file line name; do
		case $name in
		'"config.h"') continue ;;
		'<aivet/'*|'"aivet/'*)
			h=${name#?}; h=${h%?}
			[ -f "include/$h" ] && continue
			echo "# $file:$line: $name is no public header (include/aivet/)" ;;
		'<'*) continue ;;
		'"'*)
			h=${name#?}; h=${h%?}
			case $h in */*) ;; *) [ -f "$1/$h" ] && continue ;; esac
			other=cli; [ "$1" = src/cli ] && other=tui
			if [ -f "src/$other/${h##*/}" ]; then
				echo "# $file:$line: $name is the other front end's header (src/$other/)"
			else
				echo "# $file:$line: $name is not a public header (a front end includes \"aivet/NAME.h\")"
			fi ;;
		esac
	done
}

bad=$(front src/cli)
[ -z "$bad" ] || printf '%s\n' "$bad"
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "the command line (src/cli/) includes public headers and its own only"
bad=$(front src/tui)
[ -z "$bad" ] || printf '%s\n' "$bad"
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "the terminal UI (src/tui/) includes public headers and its own only"

# reads FILE...: "# FILE:LINE: calls NAME" for each call in FILE of a function
# that reads a domain result by key (the typed-records rule: a front end reads
# struct fields; the library walks its own documents).
reads() {
	awk '{
		s = $0
		while (match(s, /(^|[^A-Za-z0-9_])(cJSON_GetObjectItemCaseSensitive|cJSON_GetObjectItem|json_get_str|json_path|cJSON_GetArrayItem|cJSON_ArrayForEach)[ \t]*\(/)) {
			m = substr(s, RSTART, RLENGTH); sub(/^[^A-Za-z_]/, "", m); sub(/[ \t]*\($/, "", m)
			printf "# %s:%d: calls %s\n", FILENAME, FNR, m
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$@"
}

# The rule's check is checked: a call, one beside it, and a longer name that is no call of them.
mkdir -p "$T/reads"
printf '%s\n' 'int a;' '	x = json_get_str(o, "k"); cJSON_ArrayForEach (c, o)' \
    'my_cJSON_GetArrayItem(o, 1); cJSON_GetObjectItemCaseSensitive(o, "k");' > "$T/reads/x.c"
is "$(reads "$T/reads/x.c" | sed "s|$T/||")" "# reads/x.c:2: calls json_get_str
# reads/x.c:2: calls cJSON_ArrayForEach
# reads/x.c:3: calls cJSON_GetObjectItemCaseSensitive" "the check names each call by file and line"

bad=$(reads $(tree_files "$top" 'src/cli/*.[ch]' 'src/tui/*.[ch]'))
[ -z "$bad" ] || printf '%s\n' "$bad"
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "the front ends read no domain result by key (no cJSON_GetObjectItem, json_get_str, json_path, cJSON_GetArrayItem, cJSON_ArrayForEach)"

# main.c: public headers, and the front ends' headers by their folder.
bad=$(includes src/main.c | while read -r file line name; do
	case $name in
	'"config.h"'|'<aivet/'*|'"aivet/'*) h=${name#?}; h=${h%?}
		[ "$h" = config.h ] || [ -f "include/$h" ] || echo "# $file:$line: $name is no public header" ;;
	'"cli/'*|'"tui/'*) h=${name#?}; h=${h%?}
		[ -f "src/$h" ] || echo "# $file:$line: $name is not there" ;;
	'<'*) ;;
	*) echo "# $file:$line: $name is neither public nor a front end's" ;;
	esac
done)
[ -z "$bad" ] || printf '%s\n' "$bad"
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "main.c includes public headers and the front ends' own"

# A public header reaches no private one: its quoted includes are siblings.
# (The tracked sources alone, tree_files: the README builds in the tree.)
ours=$(tree_files "$top" src probes sim)
bad=$(includes $(tree_files "$top" 'include/aivet/*.h') | while read -r file line name; do
	case $name in
	'"'*) h=${name#?}; h=${h%?}
		[ -f "include/aivet/$h" ] && continue
		# a library's header given by name (cJSON.h) is no file of ours
		printf '%s\n' "$ours" | grep -q "/${h##*/}\$" || continue
		echo "# $file:$line: $name is a private header" ;;
	esac
done)
[ -z "$bad" ] || printf '%s\n' "$bad"
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "the public headers include no private header"

# The library includes neither front end.
bad=$(includes $(tree_files "$top" 'src/core/*.[ch]' 'src/vendors/*.[ch]' 'src/vendors/providers/*.c' \
    'src/engine/*.[ch]' 'src/domain/*.[ch]' 'src/domain/*/*.[ch]' 'probes/*.c' 'include/aivet/*.h') | while read -r file line name; do
	h=${name#?}; h=${h%?}
	if [ -f "src/cli/${h##*/}" ] || [ -f "src/tui/${h##*/}" ]; then
		echo "# $file:$line: the library includes the front end's $name"
	fi
done)
[ -z "$bad" ] || printf '%s\n' "$bad"
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "no file of the library includes a front end's header"

# The umbrellas: one per layer, each including its layer's headers, and one
# per room of the domain (src/domain/ROOM/, include/aivet/domain-ROOM.h), which
# domain.h includes; together they name every public header.
for l in core vendors engine domain; do
	ok "$([ -f "include/aivet/$l.h" ] && echo 0 || echo 1)" "include/aivet/$l.h is the $l layer's umbrella"
done
rooms=0
for r in $(tree_files "$top" 'src/domain/*/*' | cut -d/ -f3 | sort -u); do
	rooms=$((rooms + 1))
	ok "$([ -f "include/aivet/domain-$r.h" ] && grep -qx "#include \"domain-$r.h\"" include/aivet/domain.h \
	    && echo 0 || echo 1)" "src/domain/$r/ has its umbrella include/aivet/domain-$r.h, in domain.h"
done
ok "$([ "$rooms" -ge 4 ] && echo 0 || echo 1)" "the domain has its rooms ($rooms sub-folders)"
missing=$(for h in $(tree_files "$top" 'include/aivet/*.h'); do
	n=${h##*/}
	case $n in core.h|vendors.h|engine.h|domain.h) continue ;; esac
	grep -qx "#include \"$n\"" include/aivet/core.h include/aivet/vendors.h include/aivet/engine.h \
	    include/aivet/domain.h include/aivet/domain-*.h || echo "$n"
done)
is "$missing" "" "every public header is under one layer's umbrella"

done_testing
