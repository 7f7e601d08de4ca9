#!/bin/sh
# tests/pg/on-pg/cli-incident.sh: tests/cli/cli-incident.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib/lib.sh).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/cli/cli-incident.sh"
