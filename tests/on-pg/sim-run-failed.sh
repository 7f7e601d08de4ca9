#!/bin/sh
# tests/on-pg/sim-run-failed.sh: tests/sim-run-failed.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib.sh).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/sim-run-failed.sh"
