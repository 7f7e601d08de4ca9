# tests/lib/tree-lib.sh: the source files of a checkout, for the tests that
# read the sources (tests/unit/structure.sh, db-backends.sh, module-graph.sh,
# ...). Sourced by lib.sh, and by module-graph.sh, which also runs by hand.

# tree_files ROOT PATH...: the source files of the tree at ROOT that each PATH
# (a directory, a file, or a shell pattern such as 'src/core/*.[ch]', whose *
# stays within one folder) names, relative to ROOT, one a line, sorted. These
# are the files git tracks when ROOT is the top of a git checkout; elsewhere
# (an unpacked tarball) the files named like sources (.c .h .sql .sh .py .md
# .json), less the generated embedded-*.c. Never what a build left beside them:
# the README builds in the tree, so src/ also holds objects, libraries, the
# binaries and generated sources, which a check of the sources must not read.
tree_files() {
	_root=$1
	shift
	if [ "$(git -C "$_root" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$_root" && pwd -P)" ]; then
		for _p; do printf ':(glob)%s\0' "$_p"; done |
		    (cd "$_root" && xargs -0 git ls-files --) |
		    while read -r _f; do [ -f "$_root/$_f" ] && printf '%s\n' "$_f"; done
	else
		(cd "$_root" && for _p; do
			for _f in $_p; do
				if [ -d "$_f" ]; then
					find "$_f" -type f \( -name '*.[ch]' -o -name '*.sql' -o -name '*.sh' \
					    -o -name '*.py' -o -name '*.md' -o -name '*.json' \)
				elif [ -f "$_f" ]; then
					printf '%s\n' "$_f"
				fi
			done
		done) | grep -v '/embedded-[^/]*\.c$'
	fi | sort -u
}

# tree_grep ROOT GREP-ARGS...: grep -H over the files of tree ROOT listed on
# stdin (tree_files' list), each line "FILE:..." with FILE relative to ROOT;
# nothing when the list is empty.
tree_grep() {
	_root=$1
	shift
	(cd "$_root" && xargs -r grep -H "$@")
}
