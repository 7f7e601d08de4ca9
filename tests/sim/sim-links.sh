#!/bin/sh
# sim-links.sh: aivet-sim stands apart from aivet. It links libmicrohttpd and
# the small base it shares with aivet, and none of the libraries of aivet's
# terminal UI, database, HTTP client or CSV reader; none of aivet's commands,
# screens or database code is inside it. Read from the built binary's
# dynamic section (readelf -d) and symbol table (nm).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/lib.sh"

if ! command -v readelf >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
	echo "1..0 # SKIP readelf and nm (binutils) are needed"
	exit 0
fi

needed=$(readelf -d "$AIVET_SIM" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
ok "$([ -n "$needed" ] && echo 0 || echo 1)" "readelf lists what aivet-sim needs"
like "$needed" '^libmicrohttpd\.so' "aivet-sim needs libmicrohttpd"
like "$needed" '^libcjson\.so' "aivet-sim needs cJSON"
like "$needed" '^libsodium\.so' "aivet-sim needs libsodium"
for lib in libncursesw libtinfo libformw libmenuw libpanelw libsqlite3 libcurl libcsv; do
	unlike "$needed" "^$lib\\.so" "aivet-sim does not need $lib"
done

# What the static libraries brought in: nothing of aivet's own layers.
syms=$(nm --defined-only "$AIVET_SIM" 2>/dev/null | awk '{print $3}')
for sym in cmd_run cmd_table tui_main av_db db_open audit_append probe_run_all report_html; do
	unlike "$syms" "^$sym\$" "aivet-sim does not carry $sym"
done
like "$syms" '^aerr_set$' "aivet-sim carries the shared base (aerr_set)"

# And it still serves.
. "$TESTS_SRCDIR/lib/sim-lib.sh"
if sim_start --tenants A=key-a; then
	sim_http GET /v1/models -H "Authorization: Bearer key-a"
	is "$status" 200 "aivet-sim answers GET /v1/models"
	sim_stop
else
	ok 1 "aivet-sim starts"
fi

done_testing
