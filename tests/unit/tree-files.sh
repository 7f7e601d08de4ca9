#!/bin/sh
# tree-files.sh: the tests that read the sources read the sources only. The
# README builds in the tree, which leaves objects, libraries, the binaries and
# generated embedded-*.c beside the sources; tree_files (tests/lib/tree-lib.sh)
# lists what git tracks in a checkout, and the files named like sources, less
# the generated ones, in an unpacked tarball.
. "$TESTS_SRCDIR/lib/lib.sh"

# A tree as an in-tree build leaves it: two sources, a new file, and outputs.
mk_tree() {
	mkdir -p "$1/src/core" "$1/probes"
	printf 'int a;\n' >"$1/src/a.c"
	printf 'int db_kind;\n' >"$1/src/core/b.h"
	printf 'int p;\n' >"$1/probes/p.c"
	printf 'int db_kind;\n' >"$1/src/a.o"
	printf 'db_kind\n' >"$1/src/aivet"
	printf 'db_kind\n' >"$1/src/libaivet.a"
	printf 'int db_kind;\n' >"$1/src/core/embedded-x.c"
}
mk_tree "$T/tar"
printf 'int n;\n' >"$T/tar/src/new.c"
is "$(tree_files "$T/tar" src | tr '\n' ' ')" "src/a.c src/core/b.h src/new.c " \
    "a tarball: the files named like sources, no object, library, binary or generated source"
is "$(tree_files "$T/tar" 'src/*.c' probes | tr '\n' ' ')" "probes/p.c src/a.c src/new.c " \
    "a pattern's * stays in its folder; a folder lists all below it"
is "$(tree_files "$T/tar" src | tree_grep "$T/tar" -n db_kind)" "src/core/b.h:1:int db_kind;" \
    "tree_grep reads the listed files only, each named from the top"
is "$(tree_files "$T/tar" nothing | tree_grep "$T/tar" -l x)" "" "an empty list greps nothing (not stdin)"

if command -v git >/dev/null 2>&1; then
	mk_tree "$T/git"
	(cd "$T/git" && git init -q && git add src/a.c src/core/b.h probes/p.c &&
	    git -c user.name=t -c user.email=t@t commit -qm t) >/dev/null 2>&1
	printf 'int n;\n' >"$T/git/src/new.c"
	rm "$T/git/probes/p.c"
	is "$(tree_files "$T/git" src probes | tr '\n' ' ')" "src/a.c src/core/b.h " \
	    "a checkout: the tracked files that are there, not a build's outputs or an untracked file"
	is "$(tree_files "$T/git" 'src/core/*.[ch]')" "src/core/b.h" "a checkout: a pattern matches tracked files"
	# A tarball unpacked inside some other checkout is still a tarball.
	mk_tree "$T/git/sub"
	is "$(tree_files "$T/git/sub" src | tr '\n' ' ')" "src/a.c src/core/b.h " \
	    "a tree inside another checkout is listed by its files' names"
else
	skip "git is not installed: the checkout's listing is not checked"
	skip "git is not installed"
	skip "git is not installed"
fi
done_testing
