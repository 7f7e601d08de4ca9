#!/bin/sh
# tui-files.sh: attaching evidence through the file picker — browse into a
# directory, go back up, filter, pick a file; the answer then carries the
# file, stored once by its SHA-256.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"

mkdir -p "$T/files/contracts" "$T/files/zz-other"
printf 'Business Associate Agreement, signed 2026-01-15\n' > "$T/files/contracts/baa.pdf"
printf 'notes\n' > "$T/files/contracts/notes.txt"
run vendor add acme
run assess start acme llm-inference-isolation
run assess answer 1 kv_cache_scope per_tenant
cd "$T/files" || exit 1

tui_start 100x30
tui_wait "acme"
tui_keys Enter
tui_wait "Vendor:      acme"
tui_keys s
tui_wait "llm-inference-isolation"
tui_keys Enter
tui_wait "Assessment 1 (draft)"; ok $? "the assessment is open"
tui_keys f
tui_wait "Attach evidence to this answer: $T/files"; ok $? "f opens the picker in the current directory"
like "$(tui_screen)" "contracts/" "directories are marked with /"
tui_keys Down Enter
tui_wait "Attach evidence to this answer: $T/files/contracts"; ok $? "Enter opens a directory"
like "$(tui_screen)" "baa.pdf +48" "files show their size"
tui_keys BSpace
tui_wait "zz-other/"; ok $? "Backspace goes up"
tui_keys Down Enter /
tui_type baa
tui_keys Enter
tui_wait "contracts  [filter: baa]"; ok $? "/ filters the directory"
unlike "$(tui_screen)" "notes.txt" "only what matches is listed"
tui_keys Enter
sha=$(sha256sum "$T/files/contracts/baa.pdf" | cut -c1-12)
tui_wait "attached baa.pdf (48 bytes, sha256 $sha) to kv_cache_scope"
ok $? "picking the file attaches it, and the status line names the file, its size and digest"
tui_wait "Evidence: baa.pdf (48 bytes, sha256 $sha)"; ok $? "the detail pane lists the answer's files"
tui_expect tui-files-attached.txt
tui_keys f
tui_wait "Attach evidence to this answer: $T/files"
tui_keys Down Enter
tui_wait "Attach evidence to this answer: $T/files/contracts"
tui_keys Down Enter
tui_wait "baa.pdf is attached to kv_cache_scope already (sha256 $sha)"
ok $? "the same file again: the status line says it is there already"

run assess show 1 --json
is "$(printf '%s' "$out" | json '[.questions[] | select(.evidence | length > 0) | .evidence[0].original_name] | @csv')" '"baa.pdf"' \
	"the answer carries the picked file"
is "$(sqlite3 "$AIVET_DB" "SELECT sha256 FROM evidence WHERE original_name = 'baa.pdf'")" \
	"$(sha256sum "$T/files/contracts/baa.pdf" | cut -d' ' -f1)" "stored by its SHA-256"

tui_keys f Escape
tui_wait "cancelled"; ok $? "Esc cancels the picker"
done_testing
