#!/bin/sh
# tests/pg/on-pg/oracle-engine.sh: tests/oracle/oracle-engine.sh, unchanged, run on a
# fresh database on a throwaway PostgreSQL server: the oracle reads a copy of it (aivet
# db copy) beside the bundles the server's data made.
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/oracle/oracle-engine.sh"
