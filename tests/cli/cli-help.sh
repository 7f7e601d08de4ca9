#!/bin/sh
# cli-help.sh: finding one's way on the command line — "aivet help
# [COMMAND [SUBCOMMAND]]" (the same text as --help), "did you mean" for a
# mistyped command or subcommand, every subcommand named in its command's
# usage line, relative dates wherever a time is asked, and the bash and zsh
# completion scripts: their commands and subcommands are exactly those of
# aivet's own help, and bash completes with them.
. "$TESTS_SRCDIR/lib/lib.sh"
COMPL=$TESTS_SRCDIR/../completions

# ---- help ----
run help
is "$rc" 0 "aivet help exits 0"
is "$out" "$("$AIVET" --help)" "aivet help is aivet --help"
# The same text twice could be the same wrong text: each is also read against what
# it must say, written here (its usage line), not taken from aivet.
like "$out" "^usage: aivet \[--db PATH\] \[--actor NAME\] \[--tz ZONE\] COMMAND \[SUBCOMMAND\] \[options\]
" "aivet help opens with aivet's usage line"
for args in "vendor" "incident due" "probe" "report" "demo" "tui" "key list"; do
	# shellcheck disable=SC2086 # one word per argument
	run help $args
	# shellcheck disable=SC2086
	is "$rc:$out" "0:$("$AIVET" $args --help)" "aivet help $args is aivet $args --help"
	like "$(printf '%s\n' "$out" | head -1)" "^usage: aivet $args( |$)" "aivet help $args: the usage line of aivet $args"
done
run help nothing
is "$rc:$errout" "2:aivet: unknown command 'nothing' (see 'aivet --help')" "help for an unknown command"
run help incident due extra
is "$rc:$errout" "2:aivet: help takes a command and its subcommands at most
usage: aivet help [COMMAND [SUBCOMMAND [SUBCOMMAND]]]" "help takes two words where the subcommand has none"
run help incident task add
want=$("$AIVET" incident task add --help)
is "$rc:$out" "0:$want" "aivet help incident task add is aivet incident task add --help"
run help incident task add extra
is "$rc" 2 "and no more"

# ---- did you mean ----
run incidnet list
is "$rc:$errout" "2:aivet: unknown command 'incidnet': did you mean 'incident'? (see 'aivet --help')" \
	"a swapped pair of letters: did you mean"
run vendros
is "$errout" "aivet: unknown command 'vendros': did you mean 'vendor'? (see 'aivet --help')" "two edits"
run halp
is "$errout" "aivet: unknown command 'halp': did you mean 'help'? (see 'aivet --help')" "help itself"
run frob
is "$errout" "aivet: unknown command 'frob' (see 'aivet --help')" "nothing close: no guess"
run incident lsit
is "$rc:$errout" "2:aivet: incident: unknown subcommand 'lsit': did you mean 'incident list'? (see 'aivet incident --help')" \
	"a mistyped subcommand"
run probe dif 1 2
is "$errout" "aivet: probe: unknown subcommand 'dif': did you mean 'probe diff'? (see 'aivet probe --help')" \
	"probe dif"
run vendor frobnicate Acme
is "$errout" "aivet: vendor: unknown subcommand 'frobnicate' (see 'aivet vendor --help')" "nothing close: no guess"
run vendor remove Acme
is "$errout" "aivet: vendor: unknown subcommand 'remove': did you mean 'vendor archive NAME'? (see 'aivet vendor --help')" \
	"another tool's word for it: the command to type"

# ---- every subcommand in its command's usage line ----
commands=$("$AIVET" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }')
# The list the checks below walk, against the commands named here and in the manual
# (an empty or shortened list would make every check below pass).
is "$(printf '%s\n' $commands | sort | tr '\n' ' ')" \
	"advisories assess audit complete db demo endpoint evidence incident key probe questionnaire report schedule tsa tui vendor verify worker " \
	"aivet --help lists its nineteen commands"
undocumented=""
for c in $commands; do
	grep -qE "^\.(Ss $c|It Cm $c( |\$))" "$TESTS_SRCDIR/../man/aivet.1" || undocumented="$undocumented $c"
done
is "$undocumented" "" "each command aivet --help lists has its entry in aivet(1)"
missing=""
for c in $commands; do
	subs=$("$AIVET" "$c" --help 2>/dev/null | awk -v c="$c" '/^  / && $1 == c { print $2 }')
	usage=$("$AIVET" "$c" --help 2>/dev/null | sed -n '1s/^usage: aivet //p')
	for s in $subs; do
		case " $(echo "$usage" | cut -d' ' -f2 | tr '|' ' ') " in
		*" $s "*) ;;
		*) missing="$missing $c/$s" ;;
		esac
	done
done
is "$missing" "" "every command's usage line names all its subcommands"
like "$("$AIVET" probe --help)" "^usage: aivet probe run\\|queue\\|limit\\|runs\\|show\\|rejudge\\|diff \\.\\.\\." "probe --help names diff"

# ---- relative dates ----
export AIVET_NOW=2026-03-20T12:00:00Z
"$AIVET" vendor add acme >/dev/null
"$AIVET" incident open acme --title t --discovered yesterday >/dev/null
for d in tomorrow +3d +2w today now -1d +90m +4h 2026-03-25; do
	"$AIVET" incident task add 1 "t$d" --due "$d" >/dev/null
done
"$AIVET" --tz Asia/Tokyo incident task add 1 tokyo --due tomorrow >/dev/null
"$AIVET" db timezone America/New_York >/dev/null
"$AIVET" --tz Asia/Tokyo incident task add 1 ny --due tomorrow >/dev/null
run incident show 1 --json
is "$(echo "$out" | json '[.discovered_at] + (.tasks | map(.title + "=" + .due_at)) | join(" ")')" \
	"2026-03-19T00:00:00.000Z ttomorrow=2026-03-21T23:59:59.999Z t+3d=2026-03-23T12:00:00.000Z t+2w=2026-04-03T12:00:00.000Z ttoday=2026-03-20T23:59:59.999Z tnow=2026-03-20T12:00:00.000Z t-1d=2026-03-19T12:00:00.000Z t+90m=2026-03-20T13:30:00.000Z t+4h=2026-03-20T16:00:00.000Z t2026-03-25=2026-03-25T23:59:59.999Z tokyo=2026-03-21T23:59:59.999Z ny=2026-03-22T03:59:59.999Z" \
	"yesterday; a task due on a day (tomorrow, today, a date) is due by its end, in the database's zone (UTC until one is set; --tz moves none); now, +3d, +2w, -1d, +90m, +4h"
is "$(echo "$out" | json '.tasks | map(select(.title == "ttoday")) | .[0].overdue')" false \
	"a task due today is not overdue at noon"
for bad in +3 +3x 3d ++3d +d tomorow; do
	run incident task add 1 x --due "$bad"
	is "$rc:$errout" "2:aivet: --due: bad time '$bad': expected ISO 8601 such as 2026-11-30 or 2026-11-30T14:05:00Z (a time needs Z or an offset)" \
		"--due $bad is refused"
done
run incident open acme --title t --discovered tomorrow
is "$rc:$errout" "2:aivet: --discovered tomorrow is in the future" "a relative date in the future is still checked"
unset AIVET_NOW

# ---- completion scripts ----
want="help $commands"
is "$(sed -n 's/^_aivet_commands="\(.*\)"$/\1/p' "$COMPL/aivet")" "$(echo $want)" "bash: the commands of aivet --help, and help"
is "$(sed -n 's/^_aivet_commands=(\(.*\))$/\1/p' "$COMPL/_aivet")" "$(echo $want)" "zsh: the same commands"
bad_bash="" bad_zsh=""
for c in $commands; do
	subs=$("$AIVET" "$c" --help 2>/dev/null | awk -v c="$c" '/^  / && $1 == c { print $2 }' | tr '\n' ' ' | sed 's/ $//')
	got=$(sed -n "s/^_aivet_sub_$c=\"\\(.*\\)\"\$/\\1/p" "$COMPL/aivet")
	[ "$got" = "$subs" ] || bad_bash="$bad_bash $c:[$got]!=[$subs]"
	got=$(sed -n "s/^	$c \"\\(.*\\)\"\$/\\1/p" "$COMPL/_aivet")
	[ "$got" = "$subs" ] || bad_zsh="$bad_zsh $c:[$got]!=[$subs]"
done
is "$bad_bash" "" "bash: each command's subcommands are those of 'aivet COMMAND --help'"
is "$bad_zsh" "" "zsh: the same subcommands"
bash -n "$COMPL/aivet"
ok $? "the bash script parses"
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$COMPL/_aivet"
	ok $? "the zsh script parses"
else
	_n=$((_n + 1)); echo "ok $_n - the zsh script parses # SKIP zsh is not installed"
fi
# complete WORD...: what bash offers for the last word.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _aivet; echo "${COMPREPLY[*]}"' \
		sh "$COMPL/aivet" "$AIVET" "$@"
}
is "$(complete_words in)" "incident" "bash: a command"
is "$(complete_words --db x.db pr)" "probe" "bash: a command after a global option"
is "$(complete_words incident d)" "due" "bash: a subcommand"
is "$(complete_words help probe d)" "diff" "bash: help COMMAND SUBCOMMAND"
is "$(complete_words incident due --n)" "--notify-url" "bash: a subcommand's options, from its --help"
is "$(complete_words report Acme --ou)" "--out" "bash: a command's options"
is "$(complete_words --t)" "--tz" "bash: global options"
if [ -f /usr/share/zoneinfo/America/New_York ]; then
	is "$(complete_words --tz America/New_Y)" "America/New_York" "bash: --tz offers zone names"
fi
# Names from the database, through aivet complete.
"$AIVET" vendor add "Acme AI" >/dev/null
"$AIVET" endpoint add "Acme AI" --name prod --api openai --url https://api.acme.example/v1 \
	--model m --context 8192 >/dev/null
is "$("$AIVET" complete vendor Ac)" "Acme AI" "aivet complete vendor PREFIX: the vendors it starts"
is "$("$AIVET" complete endpoint "Acme AI/")" "Acme AI/prod" "aivet complete endpoint: VENDOR/NAME"
is "$("$AIVET" complete questionnaire llm-i)" "llm-inference-isolation" "aivet complete questionnaire"
# Its positionals are declared: the framework counts them and checks the kind word.
run complete vendors Ac
is "$rc:$errout" "2:aivet: 'vendors' is not one of vendor, endpoint or questionnaire
usage: aivet complete vendor|endpoint|questionnaire [PREFIX]" "aivet complete: an unknown kind is named with the choices"
run complete
is "$rc:$errout" "2:aivet: complete takes vendor|endpoint|questionnaire [PREFIX]
usage: aivet complete vendor|endpoint|questionnaire [PREFIX]" "aivet complete: a kind is needed"
run complete vendor Ac extra
is "$rc:$(echo "$errout" | head -1)" "2:aivet: complete takes vendor|endpoint|questionnaire [PREFIX]" \
	"aivet complete: one PREFIX at most"
is "$("$AIVET" complete vendor | tr '\n' ',')" "Acme AI,acme," "aivet complete vendor: every vendor without a PREFIX"
is "$(complete_words vendor show Acme)" 'Acme\ AI' "bash: a vendor's name from the database, quoted"
is "$(complete_words probe run Acme)" 'Acme\ AI/prod' "bash: an endpoint as VENDOR/NAME"
is "$(complete_words assess start acme llm-inf)" "llm-inference-isolation" "bash: a questionnaire id"
is "$(complete_words incident open acme --endpoint Ac)" 'Acme\ AI/prod' "bash: --endpoint takes an endpoint"
# zcomplete WORD...: what zsh's _aivet offers for the last word (compadd prints
# each offer the typed prefix starts, one a line; zsh quotes them as it inserts them).
zcomplete() {
	zsh -f -c 'compadd() { local w; while [[ $1 == -* && $1 != -- ]]; do shift; done
		[[ $1 == -- ]] && shift
		for w; do [[ $w == ${(Q)PREFIX}* ]] && print -r -- $w; done; return 0; }
		_files() { print -r -- "(files)"; }
		compl=$1; shift; words=("$@"); CURRENT=$#; PREFIX=$words[CURRENT]
		source "$compl"' zsh "$COMPL/_aivet" "$AIVET" "$@"
}
if command -v zsh >/dev/null 2>&1; then
	is "$(zcomplete in)" "incident" "zsh: a command"
	is "$(zcomplete incident d)" "due" "zsh: a subcommand"
	is "$(zcomplete vendor show Ac)" "Acme AI" "zsh: a vendor's name from the database"
	is "$(zcomplete probe run Acme)" "Acme AI/prod" "zsh: an endpoint as VENDOR/NAME"
	is "$(zcomplete endpoint show 'Acme\ AI/')" "Acme AI/prod" "zsh: a quoted prefix is read unquoted"
	is "$(zcomplete incident open acme --endpoint Ac)" "Acme AI/prod" "zsh: --endpoint takes an endpoint"
	is "$(zcomplete assess start acme llm-inf)" "llm-inference-isolation" "zsh: a questionnaire id"
	is "$(zcomplete report Acme --ou)" "--out" "zsh: a command's options"
	is "$(zcomplete evidence show x)" "(files)" "zsh: files elsewhere"
else
	for _z in 1 2 3 4 5 6 7 8 9; do
		_n=$((_n + 1)); echo "ok $_n - zsh completion # SKIP zsh is not installed"
	done
fi
done_testing
