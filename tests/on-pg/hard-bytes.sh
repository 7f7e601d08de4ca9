#!/bin/sh
# tests/on-pg/hard-bytes.sh: tests/hard-bytes.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib.sh).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/hard-bytes.sh"
