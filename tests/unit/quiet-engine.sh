#!/bin/sh
# quiet-engine.sh: the probe engine and the probes run no terminal. Prompts,
# progress, signal handlers and printed tables live in the front ends
# (src/cli/probe-cli.c, cmd-worker.c, the TUI); the engine reports through
# callbacks and renders text into buffers. No file of src/engine/ or probes/
# writes to a FILE* or a terminal, reads stdin, tests isatty or installs a
# signal handler (counted in structure.sh); this checks the front end holds
# what the engine gave up, and that the engine's headers declare none of it.
. "$TESTS_SRCDIR/lib/lib.sh"
top=$(cd "$TESTS_SRCDIR/.." && pwd)
cd "$top" || exit 1

# That no file of src/engine/ or probes/ makes a terminal call is counted in
# structure.sh; here, that the calls the engine gave up are in the front end.
for want in "sigaction(SIGINT" "isatty(STDERR_FILENO)" "[y/N]" "fgets(line, sizeof line, stdin)"; do
	ok "$(grep -qF "$want" src/cli/probe-cli.c && echo 0 || echo 1)" "probe-cli.c has $want"
done
ok "$(grep -qF '\r\033[K' src/cli/probe-cli.c && echo 0 || echo 1)" "probe-cli.c draws the progress bar (carriage return, erase line)"

# The command line's run API is the command line's: the engine's public headers
# declare none of it.
is "$(grep -nE '\<(probe_run_cli|probe_confirm|probe_print_[a-z_]+|probe_run_all|run_format_emit)\>' \
    $(tree_files "$top" 'include/aivet/*.h'))" "" "no public header declares the command line's probe_run_cli, probe_confirm, printers"
ok "$(grep -q 'probe_run_cli' src/cli/cli.h && echo 0 || echo 1)" "probe_run_cli is declared in src/cli/cli.h"

# Probe diff compares typed records: at most 3 reads by key remain in it.
k=$(grep -cE 'json_get_|cJSON_GetObjectItem|cJSON_ArrayForEach' src/engine/probe-diff.c)
ok "$([ -s src/engine/probe-diff.c ] && [ "$k" -le 3 ] && echo 0 || echo 1)" \
    "probe-diff.c reads at most 3 JSON members by key ($k)"

done_testing
