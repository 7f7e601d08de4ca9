#!/bin/sh
# hard-files.sh: every path aivet reads as a file must be a regular file, and
# is checked before it is read: a FIFO (which would block the open or the read
# forever) and a device are refused at once, naming the path. Each command
# runs under a timeout, so a hang fails the test instead of stopping it.
# report --out writes below its temporary directory without following links.
. "$TESTS_SRCDIR/lib/lib.sh"
D="$TESTS_SRCDIR/data"

mkfifo "$T/fifo"
# refused DESCRIPTION WANT-MESSAGE AIVET-ARGS...: exit 2 within 10 s, that message.
refused() {
	_d=$1 _want=$2
	shift 2
	_err=$(timeout 10 "$AIVET" "$@" 2>&1 >/dev/null) && _rc=0 || _rc=$?
	is "$_rc $_err" "2 aivet: $_want" "$_d"
}

run vendor add acme
run questionnaire import "$D/scoring-questionnaire.json"
run assess start acme scoring-test
run key generate --no-password
run report acme --out "$T/bundle"
is "$rc" 0 "a bundle to verify"
run incident open acme --title "leak" --discovered 2026-11-01
is "$rc" 0 "an incident to attach files to"
before=$(db_snapshot)

refused "key trust FIFO" "$T/fifo: not a regular file" key trust "$T/fifo"
refused "key import FIFO" "$T/fifo: not a regular file" key import "$T/fifo" --name other
refused "key sign FIFO" "$T/fifo: not a regular file" key sign "$T/fifo"
refused "verify DIR --pubkey FIFO" "--pubkey: $T/fifo: not a regular file" verify "$T/bundle" --pubkey "$T/fifo"
refused "audit verify --against FIFO" "--against: $T/fifo: not a regular file" audit verify --against "$T/fifo"
refused "questionnaire validate FIFO" "$T/fifo: not a regular file" questionnaire validate "$T/fifo"
refused "questionnaire import FIFO" "$T/fifo: not a regular file" questionnaire import "$T/fifo"
refused "assess import FIFO" "$T/fifo: not a regular file" assess import 1 "$T/fifo"
refused "assess answer --evidence FIFO" "evidence file: $T/fifo: not a regular file" \
	assess answer 1 gate yes --evidence "$T/fifo"
refused "incident link --file FIFO" "evidence file: $T/fifo: not a regular file" incident link 1 --file "$T/fifo"
refused "key trust /dev/zero" "/dev/zero: not a regular file" key trust /dev/zero
export AIVET_KEY_PASSWORD_FILE="$T/fifo"
refused "AIVET_KEY_PASSWORD_FILE FIFO" "AIVET_KEY_PASSWORD_FILE: $T/fifo: not a regular file" \
	key generate --name pw
unset AIVET_KEY_PASSWORD_FILE
AIVET_DB="$T/fifo" refused "the database a FIFO" "database $T/fifo: not a regular file" vendor list
printf 'Europe/Paris\n' >"$T/tz" && mkdir -p "$XDG_CONFIG_HOME/aivet" && ln -s "$T/fifo" "$XDG_CONFIG_HOME/aivet/timezone"
_err=$(timeout 10 "$AIVET" vendor list 2>&1 >/dev/null) && _rc=0 || _rc=$?
is "$_rc $_err" "0 " "the config file 'timezone' a FIFO: ignored, no hang"
rm "$XDG_CONFIG_HOME/aivet/timezone"
is "$(db_snapshot)" "$before" "nothing was recorded"

# A bundle's files are written below a fresh directory by name, never through a
# link: the writer refuses a name that exists, so nothing planted is followed.
mkdir "$T/elsewhere" && ln -s "$T/elsewhere" "$T/out-link"
run report acme --out "$T/out-link/b"
is "$rc" 0 "a report below a linked parent directory is still written (the link is the user's)"
ok "$(test -f "$T/elsewhere/b/report.json"; echo $?)" "into the directory the link names"
ok "$(ls "$T"/elsewhere/ | grep -c partial)" "and no partial directory is left"
done_testing
