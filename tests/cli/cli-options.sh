#!/bin/sh
# cli-options.sh: the option tables are the one truth about options. For
# every command and subcommand, each option its table declares shows in its
# --help with a help line, is named in aivet(1) where that command is
# described (and the check names the one missing), and is accepted by the
# parser; an option nobody declares is refused. A few options are driven for
# real in the forms getopt allows (--x=V, an unambiguous prefix).
. "$TESTS_SRCDIR/lib/lib.sh"
MAN=$TESTS_SRCDIR/../man/aivet.1

# Every (sub)command as its words, one a line: the commands of aivet --help,
# their subcommands from their own --help, down to incident task add.
expand() {
	# shellcheck disable=SC2086 # the words of the path, one argument each
	subs=$("$AIVET" $1 --help 2>/dev/null | awk -v p="  $1 " 'index($0, p) == 1 { split(substr($0, length(p) + 1), w, " "); print w[1] }')
	if [ -z "$subs" ]; then
		echo "$1"
	else
		for s in $subs; do expand "$1 $s"; done
	fi
}
paths=$(for c in $("$AIVET" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }'); do
	expand "$c"
done)
like "$paths" "incident task add" "nested subcommands are found"
is "$(echo "$paths" | wc -l | tr -d ' ')" 78 "every command and subcommand is walked"

# opts PATH...: the options the --help of PATH lists (its table), one a line
# as "--name ARG|-" and whether a help line follows.
opts() {
	"$AIVET" "$@" --help | awk '
		/^options:$/ || /^global options:$/ { f = 1; next }
		f && /^$/ { exit }
		f && /^  --/ {
			if (name != "") print name, arg, help
			line = substr($0, 3); name = line; sub(/ .*/, "", name)
			rest = substr(line, length(name) + 1)
			arg = "-"; help = "nohelp"
			if (match(rest, /^ [^ ]+( [^ ]+)?/) && substr(rest, 1, 2) != "  ") {
				arg = substr(rest, 2, RLENGTH - 1); gsub(/ /, "_", arg); rest = substr(rest, RLENGTH + 1)
			}
			if (rest ~ /^  +[^ ]/) help = "help"
			next
		}
		f && /^     +[^ ]/ { help = "help" }
		END { if (name != "") print name, arg, help }'
}

# man_names FILE PATH...: the options aivet(1) names where PATH is described
# (each ".It Cm PATH" entry, up to the next entry; the global options' section).
man_block() {
	file=$1; shift
	if [ $# -eq 0 ]; then
		sed -n '/^\.Sh GLOBAL OPTIONS/,/^\.Sh COMMANDS/p' "$file"
	else
		awk -v p=".It Cm $*" '
			index($0, p) == 1 && (length($0) == length(p) || substr($0, length(p) + 1, 1) == " ") { f = 1; print; next }
			/^\.It Cm / || /^\.S[hs] / { f = 0 }
			f { print }' "$file"
	fi
}
# missing_in FILE PATH...: the declared options FILE does not name for PATH.
missing_in() {
	file=$1; shift
	block=$(man_block "$file" "$@")
	opts "$@" | while read -r name _; do
		echo "$block" | grep -Eq -- "Fl ${name#-}([^a-z0-9-]|\$)" || printf '%s ' "$*:$name"
	done
}

no_help="" not_in_man="" refused="" nopts=0
for path in "" $(echo "$paths" | tr ' ' '+'); do
	# shellcheck disable=SC2046 # one word per argument
	set -- $(echo "$path" | tr '+' ' ')
	list=$(opts "$@")
	nopts=$((nopts + $(echo "$list" | grep -c -- '^--')))
	no_help="$no_help$(echo "$list" | awk -v p="$*" 'NF && $3 != "help" { printf "%s:%s ", p, $1 }')"
	not_in_man="$not_in_man$(missing_in "$MAN" "$@")"
	# Each declared option parses: the undeclared one after it is what is refused.
	while read -r name arg _; do
		[ -n "$name" ] || continue
		case "$name" in --help|--version) continue ;; esac
		case "$arg" in -|\[*) val="" ;; *) val=1 ;; esac
		# shellcheck disable=SC2086
		"$AIVET" "$@" "$name" ${val:+"$val"} --zz-undeclared >/dev/null 2>"$T/err" </dev/null
		rc=$?
		if [ "$rc" != 2 ] || grep -Eq -- "unknown option '$name|$name is not an option here|$name needs a value" "$T/err"; then
			refused="$refused $*:$name($rc)"
		fi
	done <<-LIST
	$list
	LIST
done
ok "$([ "$nopts" -gt 150 ]; echo $?)" "the tables declare $nopts options"
is "$no_help" "" "every option has its help line in --help"
is "$not_in_man" "" "aivet(1) names every option where its command is described"
is "$refused" "" "the parser accepts every option the tables declare"

# The checks can fail: an option the man page loses is named, one nobody
# declares is refused.
sed '/^\.It Cm vendor add/s/ Op Fl -notes Ar text//' "$MAN" >"$T/aivet.1"
is "$(missing_in "$T/aivet.1" vendor add)" "vendor add:--notes " "a man page without vendor add --notes is caught"
run vendor add x --zz-undeclared
is "$rc:$(echo "$errout" | head -1)" "2:aivet: unknown option '--zz-undeclared'" "an undeclared option is refused"
run vendor list --name x
is "$rc:$(echo "$errout" | head -1)" "2:aivet: --name is not an option here" "another subcommand's option names itself"
run vendor add x --criticality
is "$rc:$(echo "$errout" | head -1)" "2:aivet: --criticality needs a value" "a missing value"

# --help: the generated usage line, then each option aligned with its help.
run vendor add --help
is "$out" "usage: aivet vendor add NAME [--criticality 0-4] [--contact TEXT] [--notes TEXT]

add a vendor

options:
  --criticality 0-4  how much patient care depends on the vendor (4 most)
  --contact TEXT     who to call at the vendor
  --notes TEXT       free text kept with the vendor" "vendor add --help"
run help endpoint edit
like "$out" "
  --allow-insecure-http  *accept a plain http URL that is not loopback
  --require-https  *refuse plain http again
" "help endpoint edit lists its options"
like "$("$AIVET" endpoint edit --help | head -1)" "\\[--allow-insecure-http \\| --require-https\\]" \
	"alternatives share a bracket"
like "$("$AIVET" incident link --help | head -1)" "\\[--evidence EVIDENCE_ID\\]\\.\\.\\. \\[--file PATH \\[--effective DATE\\]\\]$" \
	"a repeatable option, and one that goes under another"

# Options for real: --x=V, an unambiguous prefix, a flag after the target.
run vendor add Acme --criticality=4 --cont "Ana Ruiz" --notes n
is "$rc" 0 "vendor add with --x=V and a prefix"
run vendor show Acme --json
is "$(echo "$out" | json '[.criticality, .contact, .notes] | map(tostring) | join(",")')" "4,Ana Ruiz,n" \
	"the options reached the vendor"
run endpoint add Acme --name chat --api openai --url http://127.0.0.1:9/v1 --model m --context 1000 \
	--price-in 2.5 --option region=eu
is "$rc" 0 "endpoint add"
run endpoint edit Acme/chat --price-out 10 --require-https
run endpoint show Acme/chat --json
is "$(echo "$out" | json '[.price_in_per_mtok, .price_out_per_mtok, .allow_insecure_http, .options.region] | map(tostring) | join(",")')" \
	"2.5,10,false,eu" "endpoint options reached the endpoint"
run incident open Acme --title t --eu-data no --severity 3
run incident show 1 --json
is "$(echo "$out" | json '[.eu_data, .severity] | map(tostring) | join(",")')" "false,3" \
	"--eu-data no takes its separate value"
done_testing
