#!/bin/sh
# tests/pg/on-pg/sim-cache-extract.sh: tests/sim/sim-cache-extract.sh, unchanged, run on a fresh database on a
# throwaway PostgreSQL server instead of an SQLite file (tests/lib/lib.sh): the planted
# prompts are sealed through aivet_blob_seal by the running run.
AIVET_TEST_BACKEND=pg
export AIVET_TEST_BACKEND
. "$TESTS_SRCDIR/sim/sim-cache-extract.sh"
