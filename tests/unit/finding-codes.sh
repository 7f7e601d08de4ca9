#!/bin/sh
# finding-codes.sh: a finding's code is written once, in the registry
# (include/aivet/finding.h names it, src/engine/finding.c spells it from the name): no source
# file raises or matches a finding by a string of its own.
. "$TESTS_SRCDIR/lib/lib.sh"
top="$TESTS_SRCDIR/.."
codes=$(sed -n 's/^[[:space:]]*X(\([A-Z0-9_]*\)).*/\1/p' "$top/include/aivet/finding.h")
ok "$([ "$(printf '%s\n' "$codes" | wc -l)" -ge 14 ] && echo 0 || echo 1)" "the registry's X-macro lists the codes"
# The tracked sources alone (tree_files), not what an in-tree build left there.
srcs=$(tree_files "$top" src probes sim)
for code in $codes; do
	hits=$(printf '%s\n' "$srcs" | tree_grep "$top" -ln "\"$code\"")
	is "$hits" "" "$code: no source file spells it as a string"
done
done_testing
