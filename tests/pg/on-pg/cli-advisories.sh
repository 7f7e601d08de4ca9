#!/bin/sh
# tests/pg/on-pg/cli-advisories.sh: tests/cli/cli-advisories.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib/lib.sh).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/cli/cli-advisories.sh"
