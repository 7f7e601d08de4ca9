#!/bin/sh
# tests/pg/on-pg/sim-queue.sh: tests/sim/sim-queue.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib/lib.sh).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/sim/sim-queue.sh"
