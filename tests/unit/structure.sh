#!/bin/sh
# structure.sh: the counts that keep the library easy to change, measured on
# the sources: the library touches no terminal nor the process's signals,
# the report, claims and diff code read typed records (at most 30 reads by
# key left), only the database backends know which database is in use,
# statements reach the server as written, no function runs over 100
# lines and no file over 1,000 but those HACKING.md names. Every count is
# guarded: the files it reads must exist, so a moved folder fails here
# instead of counting nothing.
. "$TESTS_SRCDIR/lib/lib.sh"
top=$(cd "$TESTS_SRCDIR/.." && pwd)
cd "$top" || exit 1

# The tracked sources alone (tree_files): the README builds in the tree.
csrcs=$(tree_files "$top" src probes sim | grep '\.c$')

count() { [ -n "$1" ] && printf '%s\n' "$1" | wc -l | tr -d ' ' || echo 0; }

# The library: no prompt, progress bar, signal handler or table of its own.
# Every layer (include/aivet, src/core, src/vendors, src/engine, src/domain,
# probes), by folder, so a new file or folder is scanned as soon as it is
# tracked: no call that writes to or reads a terminal or a standard stream, and
# none that sets the process's signals. Progress, passphrases and the fatal
# message go through callbacks the front ends (src/cli, src/tui) answer; a
# program with a main() of its own (the build's embed tool) is no part of it.
# kill(pid, 0) (run-settle.c) asks whether a process lives and sends nothing.
layers='include/aivet src/core src/vendors src/engine src/domain probes'
terminal='\b(v?f?printf|fputs|fputc|putc|putchar|puts|fwrite|fflush|fgets|getchar|getpass|perror|isatty|ttyname|tc[gs]etattr|signal|sigaction|sigprocmask|pthread_sigmask|raise|term_write|term_printf|json_emit) *\(|\b(stdin|stdout|stderr|STD(IN|OUT|ERR)_FILENO|SIG_IGN|SIG_DFL)\b|/dev/tty|\\033'
# layer_files ROOT LAYER: the layer's C sources and headers, less a program's.
layer_files() {
	tree_files "$1" "$2" | grep '\.[ch]$' | (cd "$1" && xargs -r grep -L '^main(')
}
# terminal_calls ROOT LAYER: "FILE:LINE:text" of each call, comment lines aside.
terminal_calls() {
	layer_files "$1" "$2" | tree_grep "$1" -nE "$terminal" | grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/\*|\*|//)'
}
# The pattern finds terminal calls where they are: the command line's front end.
cli=$(grep -cE "$terminal" src/cli/probe-cli.c)
ok "$([ "$cli" -ge 5 ] && echo 0 || echo 1)" "the pattern finds the terminal calls of src/cli/probe-cli.c ($cli lines)"
# And a call planted in a new folder of a layer, in a tree that is not a checkout.
mkdir -p "$T/tree/src/domain/new" "$T/tree/src/core"
printf '/* a comment naming stderr is no call */\nint quiet(void) { return 0; }\n' >"$T/tree/src/core/quiet.c"
printf 'void\nloud(void)\n{\n\tsignal(SIGPIPE, SIG_IGN);\n\tif (isatty(2))\n\t\tfputs("x", stderr);\n}\n' \
    >"$T/tree/src/domain/new/loud.c"
printf 'int\nmain(void)\n{\n\tputs("a program");\n}\n' >"$T/tree/src/core/tool.c"
is "$(for l in $layers; do terminal_calls "$T/tree" "$l"; done | cut -d: -f1,2 | tr '\n' ' ')" \
    "src/domain/new/loud.c:4 src/domain/new/loud.c:5 src/domain/new/loud.c:6 " \
    "the scan finds the calls planted in a new folder, not a comment nor a program's"
for l in $layers; do
	n=$(layer_files "$top" "$l" | wc -l | tr -d ' ')
	ok "$([ "$n" -ge 5 ] && echo 0 || echo 1)" "$l: the layer's files are where the scan looks ($n)"
	lines=$(terminal_calls "$top" "$l")
	[ -z "$lines" ] || printf '%s\n' "$lines" | sed 's/^/# /'
	is "$(count "$lines")" 0 "$l: no terminal or signal call"
done
# What the library gave up is the front ends': the passphrase read without echo
# and the key derivation told, handed to the library when the program starts.
for want in 'open("/dev/tty"' 'tcsetattr(fd, TCSAFLUSH, &quiet)' 'deriving the key (scrypt, %llu MiB)... ' \
    'key_asker_set(&tty, NULL)' 'die_report_set(fatal_report)'; do
	ok "$(grep -qF "$want" src/cli/terminal.c && echo 0 || echo 1)" "src/cli/terminal.c has $want"
done
ok "$(grep -q '^	cli_terminal_init();' src/main.c && echo 0 || echo 1)" "main() hands the library the command line's callbacks"
ok "$(grep -qF 'key_asker_set(&boxed, &before)' src/tui/tui.c && echo 0 || echo 1)" "the TUI asks in its own box while it runs"

# The report, claims and diff code read typed records.
# Every report*.c of the report's room, with the claims and the diff.
files="$(tree_files "$top" 'src/domain/report/report*.c' | tr '\n' ' ')src/domain/assess/claims.c src/engine/probe-diff.c"
missing=0
for f in $files; do [ -f "$f" ] || { echo "# $f: not found"; missing=$((missing + 1)); }; done
is "$missing" 0 "the report, claims and diff files are where the count looks"
ok "$([ "$(echo $files | wc -w)" -ge 11 ] && echo 0 || echo 1)" "the count looks at the report's files, the claims and the diff ($(echo $files | wc -w))"
reads=$(cat $files 2>/dev/null | grep -cE 'json_get_|cJSON_GetObjectItem|cJSON_ArrayForEach')
for f in $files; do echo "# $f: $(grep -cE 'json_get_|cJSON_GetObjectItem|cJSON_ArrayForEach' "$f")"; done
ok "$([ "$reads" -le 30 ] && echo 0 || echo 1)" "report, claims and diff read by key at most 30 times ($reads)"

# Which database: the backends alone.
n_src=$(tree_files "$top" src include | grep -c '\.[ch]$')
ok "$([ "$n_src" -ge 150 ] && echo 0 || echo 1)" "the sources are where the count looks ($n_src files)"
lines=$(tree_files "$top" src include | tree_grep "$top" -n 'db_kind' | grep -v '^src/core/db-')
[ -z "$lines" ] || printf '%s\n' "$lines" | sed 's/^/# /'
is "$(count "$lines")" 0 "db_kind() outside the backends (src/core/db-*.c): 0"
ok "$([ -f src/core/db-pg.c ] && ! grep -qE 'dialect_rule|is_not_value|blob_as_text' src/core/db-pg.c \
    && echo 0 || echo 1)" "PostgreSQL gets statements as written: no dialect rewritten at prepare"

# Long functions: the body of each function in src/, probes/ and sim/, from
# its "{" to its "}" at the start of a line. None is over 100 lines: split by
# meaning, one piece per section or step.
# long FILE...: "FILE NAME LINES" for each function over 100 lines.
long() {
	awk '/^[A-Za-z_][A-Za-z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name) }
	/^\{/ { start = FNR; inf = 1 }
	/^\}/ && inf { if (FNR - start + 1 > 100) print FILENAME, name, FNR - start + 1; inf = 0 }' "$@"
}
{ printf 'int\nshort_one(void)\n{\n'; seq 98 | sed 's/.*/\tx();/'; printf '}\nint\nlong_one(void)\n{\n'
  seq 99 | sed 's/.*/\tx();/'; printf '}\n'; } >"$T/long.c"
is "$(long "$T/long.c" | sed "s|$T/||")" "long.c long_one 101" "the count finds a body of 101 lines, not one of 100"
long=$(long $csrcs)
nfun=$(printf '%s\n' "$csrcs" | xargs grep -c '^{' | awk -F: '{ s += $2 } END { print s + 0 }')
ok "$([ "$nfun" -ge 1000 ] && echo 0 || echo 1)" "the function count sees the functions ($nfun)"
[ -z "$long" ] || printf '%s\n' "$long" | sed 's/^/# over 100 lines: /'
is "$(count "$long")" 0 "no function over 100 lines"

# Long files: one concern per file, and no source file of src/ over 1,000
# lines but those HACKING.md names, each with its reason, in the bullet that
# opens "One concern per file".
# over_1000 FILE...: "FILE LINES" for each file over 1,000 lines.
over_1000() { wc -l "$@" | awk '$2 != "total" && $1 > 1000 { print $2, $1 }'; }
seq 1000 >"$T/a.c"; seq 1001 >"$T/b.c"
is "$(cd "$T" && over_1000 a.c b.c)" "b.c 1001" "the count finds a file of 1,001 lines, not one of 1,000"
named=$(awk '/^- One concern per file/ { on = 1 } on && /^- / && !/^- One concern per file/ { on = 0 } on' HACKING.md)
ok "$([ -n "$named" ] && echo 0 || echo 1)" "HACKING.md has the bullet that names the long files"
long_files=$(over_1000 $(tree_files "$top" src | grep '\.c$'))
unnamed=$(printf '%s\n' "$long_files" | while read -r f n; do
	[ -n "$f" ] && ! printf '%s\n' "$named" | tr '\n' ' ' | grep -qF "\`$f\`" && echo "$f ($n lines)"; done)
[ -z "$long_files" ] || printf '%s\n' "$long_files" | sed 's/^/# over 1,000 lines: /'
[ -z "$unnamed" ] || printf '%s\n' "$unnamed" | sed 's/^/# not named in HACKING.md: /'
is "$(count "$unnamed")" 0 "every file of src/ over 1,000 lines is named in HACKING.md with its reason"
ok "$([ "$(count "$long_files")" -le 4 ] && echo 0 || echo 1)" "at most four files of src/ over 1,000 lines ($(count "$long_files"))"

done_testing
