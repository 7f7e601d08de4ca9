#!/bin/sh
# tests/pg/on-pg/queue-not-started.sh: tests/sim/queue-not-started.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib/lib.sh).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/sim/queue-not-started.sh"
