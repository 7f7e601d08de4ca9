#!/bin/sh
# cmd-decl.sh: commands are declared as tmux's are, and the framework does
# the rest. Every command table (struct cmd_entry) and every option table
# (struct opt) names its fields (designated initializers), and no command's
# exec parses its own options or resolves its own targets: src/cli/cmd-*.c
# call none of opt_begin, opt_next, opt_json_args and target_resolve, which
# commands.c runs before exec, and no entry keeps the old exec of argc and
# argv. Each check is first shown to find what it looks for, in a planted
# file.
. "$TESTS_SRCDIR/lib/lib.sh"
top=$(cd "$TESTS_SRCDIR/.." && pwd)
cd "$top" || exit 1

count() { [ -n "$1" ] && printf '%s\n' "$1" | wc -l | tr -d ' ' || echo 0; }

# parse_calls FILE...: "FILE:LINE:text" of each call parsing argv or
# resolving a target by hand, comment lines aside.
parse_calls() {
	grep -nE '\b(opt_begin|opt_next|opt_json_args|target_resolve) *\(|\.exec_argv\b' "$@" /dev/null |
	    grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/\*|\*|//)'
}
# positional_entries FILE...: "FILE:LINE:text" of each struct cmd_entry
# initializer whose first member is not designated ("{ "name", ..." or a
# single entry's first line "\t"name", ...").
positional_entries() {
	awk '
	/struct cmd_entry [a-z_]+(\[\])? *= *\{/ { inside = 1; first = ($0 !~ /\[\]/); next }
	inside && /^\}/ { inside = 0; next }
	inside && first && !/^[ \t]*\./ { print FILENAME ":" FNR ":" $0 }
	{ first = 0 }
	inside && /^[ \t]*\{ *[^ .0}]/ { print FILENAME ":" FNR ":" $0 }
	' "$@"
}

cmds=$(ls src/cli/cmd-*.c)
ok "$([ "$(count "$cmds")" -ge 15 ] && echo 0 || echo 1)" "the command files are there ($(count "$cmds"))"

# The checks find what they look for.
mkdir -p "$T/plant"
cat > "$T/plant/cmd-x.c" <<'C'
static int
x_cmd(struct aivet *av, int argc, char **argv, struct aerr *err)
{
	struct opt_parser p;

	opt_begin(&p, av, argc, argv);
	return target_resolve(db, TARGET_VENDOR, argv[1], &id, err);
}
static const struct cmd_entry x_subs[] = {
	{ "show", "ID", NULL, "show one", x_cmd, NULL, ARGS({ TARGET_RUN, 0 }) },
	{ .name = "list", .summary = "list them", .exec = x_list, .args = ARGS_NONE },
	{ 0 }
};
const struct cmd_entry cmd_x_entry = {
	"x", NULL, NULL, "the x command", NULL, x_subs, NULL
};
C
is "$(parse_calls "$T/plant/cmd-x.c" | wc -l | tr -d ' ')" 2 "a planted opt_begin and target_resolve are found"
is "$(positional_entries "$T/plant/cmd-x.c" | sed 's/.*:\([0-9]*\):.*/\1/' | tr '\n' ' ')" "10 15 " \
    "a planted positional entry and a positional single entry are found, the designated one is not"

calls=$(parse_calls $cmds)
[ -z "$calls" ] || printf '%s\n' "$calls" | sed 's/^/# parses for itself: /'
is "$(count "$calls")" 0 "no command's exec parses its options or resolves its targets itself"
# What exec is handed: the parsed options and resolved targets, never argv.
argv_fns() { grep -nE '^[a-z_]+\(struct aivet \*av, int argc, char \*\*argv' "$@" /dev/null; }
is "$(argv_fns "$T/plant/cmd-x.c" | wc -l | tr -d ' ')" 1 "a planted function of argc and argv is found"
old=$(argv_fns $cmds)
[ -z "$old" ] || printf '%s\n' "$old" | sed 's/^/# takes argv: /'
is "$(count "$old")" 0 "no command function takes argc and argv"
new=$(grep -cE '^[a-z_]+\(struct aivet \*av, const struct cmd_args \*args?,' $cmds | awk -F: '{ s += $2 } END { print s }')
ok "$([ "$new" -ge 50 ] && echo 0 || echo 1)" "the command functions taking struct cmd_args are seen ($new)"

pos=$(positional_entries src/cli/*.c src/main.c)
[ -z "$pos" ] || printf '%s\n' "$pos" | sed 's/^/# positional: /'
is "$(count "$pos")" 0 "every command table names its fields"
# Every command that runs declares its positionals, so the framework counts
# and resolves them for all: an entry with .exec has .args.
undeclared_entries() {
	awk '
	/struct cmd_entry [a-z_]+(\[\])? *= *\{/ { inside = 1; next }
	inside && /^\}/ { if (e != "" && e ~ /\.exec =/ && e !~ /\.args =/) print FILENAME ": " e; inside = 0; e = ""; next }
	inside && /^[ \t]*\{/ { if (e ~ /\.exec =/ && e !~ /\.args =/) print FILENAME ": " e; e = "" }
	inside { e = e $0 }
	' "$@"
}
cat > "$T/plant/cmd-y.c" <<'C'
static const struct cmd_entry y_subs[] = {
	{ .name = "a", .summary = "declared", .exec = y_a, .args = ARGS_NONE },
	{ .name = "b", .summary = "not",
	  .exec = y_b },
	{ 0 }
};
const struct cmd_entry cmd_y_entry = {
	.name = "y",
	.exec = y_main,
};
C
is "$(undeclared_entries "$T/plant/cmd-y.c" | sed 's/.*\.name = "\([a-z]*\)".*/\1/' | tr '\n' ' ')" "b y " \
    "planted entries without .args are found, the declared one is not"
und=$(undeclared_entries $cmds)
[ -z "$und" ] || printf '%s\n' "$und" | sed 's/^/# no .args: /'
is "$(count "$und")" 0 "every command that runs declares its positionals"
n=$(grep -c '\.name = "' $cmds | awk -F: '{ s += $2 } END { print s }')
ok "$([ "$n" -ge 80 ] && echo 0 || echo 1)" "the designated entries are seen ($n)"

# positional_opts FILE...: "FILE:LINE:text" of each line holding a struct opt
# row whose first member is not designated, in an option table
# ("struct opt NAME[] = { ... };") or in a macro such a table takes as a line
# of its own (or first, on the table's one line). A row opens "{ .name" or is
# "{ 0 }"; string literals are blanked first, so a brace in a help text is no
# row.
positional_opts() {
	awk '
	function rows(s,   i, t) {
		gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
		while ((i = index(s, "{")) > 0) {
			s = substr(s, i + 1)
			t = s
			sub(/^[ \t]*/, "", t)
			if (t !~ /^\./ && t !~ /^0[ \t]*\}/) {
				print FILENAME ":" FNR ":" $0
				return
			}
		}
	}
	FNR == 1 { table = 0; macro = 0 }
	match($0, /struct opt [a-z_]+\[\] *= *\{/) {
		rest = substr($0, RSTART + RLENGTH)
		if (pass == 1 && match(rest, /^[ \t]*[A-Z_][A-Z0-9_]*/))
			used[substr(rest, RSTART, RLENGTH)] = 1
		if (pass == 2)
			rows(rest)
		table = rest !~ /\};/
		next
	}
	table && /^\};/ { table = 0; next }
	table && pass == 1 && /^[ \t]*[A-Z_][A-Z0-9_]*[ \t]*(\(.*\))?[ \t]*,?[ \t]*$/ {
		name = $0
		sub(/^[ \t]*/, "", name)
		sub(/[^A-Z0-9_].*/, "", name)
		used[name] = 1
	}
	table && pass == 2 { rows($0) }
	pass == 2 && macro { rows($0); macro = /\\$/; next }
	pass == 2 && /^#define [A-Z_][A-Z0-9_]*(\([^)]*\))? *\\$/ {
		name = $2
		sub(/\(.*/, "", name)
		macro = name in used
	}
	' pass=1 "$@" pass=2 "$@"
}
cat > "$T/plant/cmd-z.c" <<'C'
#define Z_OPTS \
	{ "zed", O_ZED, "N", "a positional row in a macro", 0 }, \
	{ .name = "zee", .id = O_ZEE, \
	  .help = "a designated one, over two lines" }
#define Z_WORDS \
	{ "no", "option" }, { "rows", "here" }
static const struct opt z_opts[] = {
	{ "json", O_JSON, NULL, "print JSON", 0 },
	{ .name = "all", .id = O_ALL, .help = "every {one}, braces in the text" },
	{ .name = "zap", .id = O_ZAP, .arg = "ZAP",
	  .help = "a help text "
	  "over two lines", .flags = OPT_MANY },
	Z_OPTS,
	{ NULL, 0, NULL, NULL, 0 }
};
static const struct opt z_more_opts[] = { Z_OPTS, { NULL, 0, NULL, NULL, 0 } };
static const struct opt z_done_opts[] = { Z_OPTS, { 0 } };
static const struct { const char *a, *b; } z_words[] = {
	{ "not", "an option table" },
	Z_WORDS
};
C
is "$(positional_opts "$T/plant/cmd-z.c" | sed 's/.*:\([0-9]*\):.*/\1/' | tr '\n' ' ')" "2 8 14 16 " \
    "planted positional option rows are found (in a table, on its one line, in a macro it takes), the designated ones and other tables' rows are not"
optfiles="src/cli/*.c src/cli/cli.h src/main.c"
popt=$(positional_opts $optfiles)
[ -z "$popt" ] || printf '%s\n' "$popt" | sed 's/^/# positional option: /'
is "$(count "$popt")" 0 "every option table names its fields"
# The tables are where the check looks: no struct opt table outside those files.
elsewhere=$(grep -rlE 'struct opt [a-z_]+\[\] *=' src | grep -vE '^src/(cli/[^/]*\.[ch]|main\.c)$')
is "$(count "$elsewhere")" 0 "the option tables are all in src/cli and src/main.c"
n=$(cat $optfiles | grep -c '{ \.name = "[^"]*", \.id = ')
ok "$([ "$n" -ge 150 ] && echo 0 || echo 1)" "the designated option rows are seen ($n)"

done_testing
