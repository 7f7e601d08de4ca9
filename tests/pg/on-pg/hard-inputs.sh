#!/bin/sh
# tests/pg/on-pg/hard-inputs.sh: tests/hard/hard-inputs.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib/lib.sh).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/hard/hard-inputs.sh"
