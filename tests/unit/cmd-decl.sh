#!/bin/sh
# cmd-decl.sh: commands are declared as tmux's are, and the framework does
# the rest. Every command table (struct cmd_entry) names its fields
# (designated initializers), and no command's exec parses its own options or
# resolves its own targets: src/cli/cmd-*.c call none of opt_begin, opt_next,
# opt_json_args and target_resolve, which commands.c runs before exec, and no
# entry keeps the old exec of argc and argv. Each check is first shown to
# find what it looks for, in a planted file.
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

done_testing
