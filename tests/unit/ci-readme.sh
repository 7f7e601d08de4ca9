#!/bin/sh
# ci-readme.sh: CI runs README.md's own commands. .ci/run reads the README's
# first two sh blocks (install, build and demo; make check) and runs them in a
# fresh clone; `.ci/run --readme` prints them as it runs them. A README whose
# blocks are not those commands stops CI before anything runs.
. "$TESTS_SRCDIR/lib/lib.sh"
top=$(cd "$TESTS_SRCDIR/.." && pwd)

cmds=$(bash "$top/.ci/run" --readme) && rc=0 || rc=$?
is "$rc" 0 ".ci/run --readme exits 0"
is "$(printf '%s\n' "$cmds" | wc -l | tr -d ' ')" 2 "two commands"
like "$(printf '%s\n' "$cmds" | sed -n 1p)" \
    '^(sudo )?apt-get update && (sudo )?apt-get install -y build-essential .* zsh && autoreconf -fi && \./configure && make -j2 && \./src/aivet demo$' \
    "the first: install, build in the tree without options, and the demo"
is "$(printf '%s\n' "$cmds" | sed -n 2p)" "make check" "the second: make check"

# The check can fail: a README whose first block builds nothing stops CI.
mkdir -p "$T/x/.ci"
cp "$top/.ci/run" "$T/x/.ci/run"
printf '# x\n\n```sh\nmake check\n```\n\n```sh\n./configure && make\n```\n' >"$T/x/README.md"
out=$(bash "$T/x/.ci/run" --readme 2>&1) && rc=0 || rc=$?
is "$rc:$out" "2:README.md's first two sh blocks are not the install-build line and make check" \
    "blocks out of order: CI stops, saying why"
printf '# x\n\n```sh\napt-get install -y a b && ./configure && make\n```\nRun:\n```sh\nmake check\n```\n' >"$T/x/README.md"
is "$(bash "$T/x/.ci/run" --readme | sed 's/^sudo //; s/&& sudo /\&\& /' | tr '\n' '|')" \
    "apt-get install -y a b && ./configure && make|make check|" "the blocks are read as written"
done_testing
