#!/bin/sh
# tests/on-pg/cli-assess-xlsx.sh: tests/cli-assess-xlsx.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib.sh).
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/cli-assess-xlsx.sh"
