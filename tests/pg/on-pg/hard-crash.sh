#!/bin/sh
# tests/pg/on-pg/hard-crash.sh: tests/hard/hard-crash.sh run on a fresh database on a throwaway
# PostgreSQL server instead of an SQLite file (tests/lib/lib.sh), with 20 kills rather than 50:
# each check after a kill reads a copy of the whole database, and the server keeps its own pages
# (AIVET_CRASH_KILLS sets the count).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
AIVET_CRASH_KILLS=${AIVET_CRASH_KILLS:-20}
. "$TESTS_SRCDIR/hard/hard-crash.sh"
