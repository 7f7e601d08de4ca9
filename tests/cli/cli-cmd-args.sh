#!/bin/sh
# cli-cmd-args.sh: what the command framework does before a command's exec
# runs, seen from the command line: an option whose argument may be left out
# takes the next word only when it is one of the words its argument's name
# lists; an option naming a target (--vendor) is resolved, and refused when
# unknown, before anything is read or written; a positional given any number
# of times ("VENDOR/ENDPOINT..." beside --all) is resolved word by word and in
# order; a repeated option's last value counts; an option accepted only to be
# refused is in no usage line.
. "$TESTS_SRCDIR/lib/lib.sh"

run vendor add Acme
run vendor add Beta
export AIVET_TEST_KEY=k
for e in a b; do
	run endpoint add Acme --name "$e" --api openai --url http://127.0.0.1:9/v1 --model m \
	    --context 8192 --credential t1=env:AIVET_TEST_KEY
done

# --eu-data [yes|no|unknown]: a word it does not list is the next positional.
run incident open --eu-data Acme --title "eu first" --discovered 2026-03-01T10:00:00Z
is "$rc:$out" "0:incident 1 opened for vendor Acme (discovered 2026-03-01T10:00:00.000Z)" \
    "--eu-data before the vendor leaves the vendor a positional"
run incident show 1 --json
is "$(printf '%s' "$out" | json .eu_data)" true "--eu-data alone means yes"
run incident open Beta --eu-data no --title "eu no" --discovered 2026-03-01T10:00:00Z
is "$rc:$out" "0:incident 2 opened for vendor Beta (discovered 2026-03-01T10:00:00.000Z)" \
    "--eu-data no: the listed word is its argument, not a positional"
run incident show 2 --json
is "$(printf '%s' "$out" | json .eu_data)" false "--eu-data no is no"

# --vendor VENDOR, the entry's target option: resolved before the command runs.
run incident list --vendor Nope
is "$rc:$out:$errout" "2::aivet: unknown vendor 'Nope' (see 'aivet vendor list')" \
    "an unknown --vendor is refused by the resolver's words"
run incident list --vendor Beta
is "$rc:$(printf '%s\n' "$out" | awk 'NR > 1 { print $1, $3 }' | tr '\n' ' ')" "0:2 Beta " \
    "incident list --vendor Beta lists Beta's incident alone"
snap=$(db_snapshot)
run schedule add --every 1h --all --vendor Nope
is "$rc:$errout" "2:aivet: unknown vendor 'Nope' (see 'aivet vendor list')" \
    "schedule add: an unknown --vendor is refused"
is "$(db_snapshot)" "$snap" "the refused schedule changes nothing"

# VENDOR/ENDPOINT... or --all: none at all with --all, each one resolved in order.
run schedule add --every 1h --all
is "$rc:$out" "0:schedule 1: every endpoint every 1h" "schedule add --all takes no endpoint"
run probe queue Acme/b Acme/a --probe echo
is "$rc:$out" "0:queued run entry 1 for Acme/b
queued run entry 2 for Acme/a" "probe queue: every endpoint named, in the order given"
run probe queue Acme/a Acme/nope --probe echo
is "$rc:$errout" "2:aivet: unknown endpoint 'Acme/nope' (see 'aivet endpoint list')" \
    "probe queue: an unknown endpoint beyond the first is refused"

# The last of a repeated option counts.
run vendor edit Acme --notes one --notes two
run vendor show Acme --json
is "$(printf '%s' "$out" | json .notes)" two "--notes given twice: the last counts"

# An option accepted only to be refused by name is in no usage line nor --help.
run assess approve --help
unlike "$out" "reviewer" "assess approve --help does not offer --reviewer"
# A positional that may be left out only with an option.
run key untrust
is "$rc:$errout" "2:aivet: key untrust needs exactly one NAME
usage: aivet key untrust NAME [--reviewer NAME]" "key untrust needs a NAME without --reviewer"

done_testing
