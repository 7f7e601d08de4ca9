#!/bin/sh
# tests/pg/on-pg/tui-command.sh: tests/tui/tui-command.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib/lib.sh).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/tui/tui-command.sh"
