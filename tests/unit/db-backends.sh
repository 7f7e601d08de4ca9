#!/bin/sh
# db-backends.sh: the backends alone know the database. Which store a handle is
# on is asked nowhere but in src/core/db-*.c (the backends and their shared
# header): a difference is a member of their struct db_ops, reached through a
# db_* call. And db-pg.c rewrites no statement as it is prepared: statements
# are written in the SQL both stores accept; only "?" placeholders are numbered.
# Every write to a table the roles may write only through the server's
# functions is a struct db_write, named once, its form the backend's choice.
. "$TESTS_SRCDIR/lib/lib.sh"
top="$TESTS_SRCDIR/.."

# The lines outside the backends that ask for the store's kind, in tree $1.
kind_tests() {
	tree_files "$1" src include | tree_grep "$1" -n 'db_kind\|DB_KIND_' | grep -v "^src/core/db-"
}
# Statements in the SQLite dialect PostgreSQL does not accept, in tree $1's C sources.
sqlite_only() {
	tree_files "$1" src probes sim | grep '\.[ch]$' |
	    tree_grep "$1" -niE '"[^"]*(INSERT OR (IGNORE|REPLACE)|CAST\([a-z_.]*data AS TEXT\))'
	# (SQL is written in capitals here; a message's "is not" is not SQL.)
	tree_files "$1" src probes sim | grep '\.c$' | tree_grep "$1" -nE '"[^"]*\bIS NOT +[A-Za-z?]' |
	    grep -E '(SELECT|WHERE|UPDATE|INSERT)' | grep -vE 'IS NOT +(NULL|TRUE|FALSE|DISTINCT|UNKNOWN)\b'
}

# The tables the roles write only through the server's functions (db/pg/'s
# REVOKEs), as an alternation.
evidentiary=$(cat "$top"/db/pg/*.sql | tr '\n\t' '  ' |
    grep -oE 'REVOKE INSERT, UPDATE, DELETE ON [a-z_, ]+ FROM' |
    sed 's/REVOKE INSERT, UPDATE, DELETE ON //; s/ FROM$//' | tr -d ' ' | tr ',' '\n' | sort -u)
# Each write to those tables in tree $1's C sources ("in" or "out" of a struct
# db_write's initializer: a write named once, its form the backend's choice).
writes() {
	tree_files "$1" src probes | grep '\.c$' | (cd "$1" && xargs -r awk -v pat="$(echo $evidentiary | tr ' ' '|')" '
	FNR == 1 { inw = 0 }
	/struct db_write [a-z_]+ = \{/ { inw = 1 }
	match($0, "\"[^\"]*(INSERT INTO|UPDATE|DELETE FROM) (" pat ")( |\\(|\"|$)") {
		print (inw ? "in" : "out") " " FILENAME ":" FNR
	}
	/^\};/ { inw = 0 }')
}

# The checks can fail: a tree with a kind test and a rewritten statement trips them.
fake=$(mktemp -d)
mkdir -p "$fake/src/cli" "$fake/src/core" "$fake/include" "$fake/probes" "$fake/sim"
printf 'if (db_kind(db) == DB_KIND_PG)\n' > "$fake/src/cli/cmd-x.c"
printf 'enum db_kind db_kind(const struct db *db);\n' > "$fake/src/core/db-sqlite.c"
printf 'x("INSERT OR IGNORE INTO t (a) VALUES (?)");\ny("SELECT a FROM t WHERE a IS NOT ?");\n' \
    > "$fake/src/core/q.c"
is "$(kind_tests "$fake" | sed "s|$fake/||")" "src/cli/cmd-x.c:1:if (db_kind(db) == DB_KIND_PG)" \
    "the kind check finds a test outside the backends, and only that one"
is "$(sqlite_only "$fake" | wc -l | tr -d ' ')" 2 "the dialect check finds OR IGNORE and IS NOT value"
printf 'static const struct db_write w = {\n\t{ "INSERT INTO finding (a) VALUES (?1)" },\n\t"SELECT f(?1)", 0\n};\nx = db_exec(db, err, "UPDATE finding SET a = 1", NULL);\n' \
    > "$fake/src/core/w.c"
is "$(writes "$fake" | sed "s|$fake/||" | tr '\n' ' ')" "in src/core/w.c:2 out src/core/w.c:5 " \
    "the write check tells a db_write's statement from a plain one"
rm -rf "$fake"

# The tree: the backends and their table are where the check looks.
for f in src/core/db-impl.h src/core/db-sqlite.c src/core/db-pg.c include/aivet/db.h; do
	ok "$([ -s "$top/$f" ] && echo 0 || echo 1)" "$f exists"
done
is "$(grep -c '^struct db_ops {' "$top/src/core/db-impl.h")" 1 "db-impl.h defines struct db_ops"
is "$(grep -c '^static const struct db_ops [a-z]*_ops = {' "$top/src/core/db-sqlite.c" "$top/src/core/db-pg.c" |
    sed 's|.*/||' | tr '\n' ' ')" "db-sqlite.c:1 db-pg.c:1 " "each backend fills one table"
callers=$(tree_files "$top" src | tree_grep "$top" -lE 'db_has\(|db_tables\(|db_backend_name\(|db_now_sql\(' |
    grep -vc "^src/core/db")
ok "$([ "$callers" -ge 5 ] && echo 0 || echo 1)" "callers ask the backends' table ($callers files)"

is "$(kind_tests "$top")" "" "db_kind(): no test of the store's kind outside src/core/db-*.c"
is "$(grep -c 'db_kind' "$top/include/aivet/db.h")" 0 "db.h declares no db_kind()"
is "$(sqlite_only "$top")" "" "no statement in SQLite's dialect alone"
is "$(grep -cE 'dialect_rules|is_not_value|blob_as_text|IS DISTINCT FROM|ON CONFLICT|convert_from' \
    "$top/src/core/db-pg.c")" 0 "db-pg.c holds no rewriting rule"
is "$(grep -c '^pg_sql(' "$top/src/core/db-pg.c")" 1 "db-pg.c's prepare numbers placeholders (pg_sql)"
# What the rules did is now written in the statements themselves.
ok "$(grep -q 'ON CONFLICT DO NOTHING' "$top/src/engine/probe-results.c" && echo 0 || echo 1)" \
    "finding_evidence: ON CONFLICT DO NOTHING, as written"
ok "$(grep -q 'IS DISTINCT FROM timeline' "$top/src/domain/incident/incident.c" && echo 0 || echo 1)" \
    "incident status: IS DISTINCT FROM, as written"
# Every evidentiary write is named once: a struct db_write, whose form (SQLite's
# statements or the server's function) db_write() chooses; only db copy, the
# owner's restore of rows as they were, writes them plainly.
n=$(echo $evidentiary | wc -w)
ok "$([ "$n" -ge 18 ] && echo 0 || echo 1)" "db/pg/ revokes direct writes on $n tables"
n=$(writes "$top" | grep -c '^in ')
ok "$([ "$n" -ge 30 ] && echo 0 || echo 1)" "$n statements of struct db_write write them"
is "$(writes "$top" | grep '^out ' | grep -v ' src/domain/audit/db-copy.c:')" "" \
    "no plain write to an evidentiary table outside db copy"
# Each write's server form is a function the migrations create (db/pg/).
called=$(tree_files "$top" src | grep '\.c$' | (cd "$top" && xargs -r awk '/struct db_write [a-z_]+ = \{/ { inw = 1 } inw { print }
    /^\};/ { inw = 0 }') | grep -oE '"SELECT aivet_[a-z_]+\(' | sed 's/"SELECT //; s/($//' | sort -u)
n=$(echo $called | wc -w)
ok "$([ "$n" -ge 30 ] && echo 0 || echo 1)" "struct db_write names $n server functions"
is "$(for f in $called; do grep -qE "CREATE (OR REPLACE )?FUNCTION $f\(" "$top"/db/pg/*.sql || echo "$f"; done)" "" \
    "each is created by a migration of db/pg/"
# The list of tables is written once, in each backend's table.
is "$(tree_files "$top" src | tree_grep "$top" -lE 'sqlite_master WHERE type = .table|information_schema.tables' |
    sort | tr '\n' ' ')" "src/core/db-pg.c src/core/db-sqlite.c " "the list of tables: once a backend"
done_testing
