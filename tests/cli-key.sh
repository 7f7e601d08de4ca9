#!/bin/sh
# tests/cli-key.sh: aivet key — generate, import, list, show, sign — and
# interoperation with the stock minisign tool in both directions.
. "$TESTS_SRCDIR/lib.sh"
KEYS="$XDG_CONFIG_HOME/aivet/keys"
MSG="$T/message.txt"
printf 'a file to sign\n' > "$MSG"

# ---- generate (unencrypted) ----
run key generate --no-password
is "$rc" 0 "key generate --no-password succeeds"
id=$(sed -n 's/^untrusted comment: minisign public key //p' "$KEYS/aivet.pub")
like "$out" "^key aivet generated \(key id $id\)" "prints the key id of the public key file"
is "$(stat -c %a "$KEYS/aivet.key")" 600 "secret key is 0600"
is "$(stat -c %a "$KEYS")" 700 "key directory is 0700"
is "$(sed -n 1p "$KEYS/aivet.key")" "untrusted comment: minisign secret key (unencrypted)" \
	"unencrypted secret key says so in its comment"
is "$(sed -n 2p "$KEYS/aivet.pub" | base64 -d | head -c 2)" "Ed" "public key starts with 'Ed'"
is "$(sed -n 2p "$KEYS/aivet.key" | base64 -d | od -An -tx1 -N6 | tr -d ' ')" "456400004232" \
	"secret key header: Ed, kdf 00 00, B2"

run key generate --no-password
is "$rc" 2 "a second key with the same name is refused"
is "$errout" "aivet: a key named 'aivet' exists already ($KEYS/aivet.key)" "and named"

run key generate --name ../evil --no-password
is "$rc" 2 "a key name with a slash is refused"
like "$errout" "key name '../evil': use 1-64 letters" "with the rule"

# setsid: no controlling terminal even when make check runs on one.
setsid -w "$AIVET" key generate --name nopw >/dev/null 2>"$T/stderr" && rc=0 || rc=$?
errout=$(cat "$T/stderr")
is "$rc" 2 "without a terminal or AIVET_KEY_PASSWORD_FILE a passphrase cannot be read"
is "$errout" "aivet: a passphrase is needed: set AIVET_KEY_PASSWORD_FILE or run on a terminal" "and says how"
ok "$(test ! -e "$KEYS/nopw.key"; echo $?)" "nothing was written"

# ---- show and list ----
pk=$(sed -n 2p "$KEYS/aivet.pub")
run key show
is "$out" "untrusted comment: minisign public key $id
$pk

key id $id; verify with:
minisign -Vm <file> -P $pk" "key show prints the public key as minisign does"
run key show --json
is "$(printf "%s\n" "$out" | json '.key_id + " " + .public_key + " " + (.encrypted|tostring)')" "$id $pk false" \
	"key show --json: key_id, public_key, encrypted"

# ---- minisign signs with our key; both verify ----
minisign -S -s "$KEYS/aivet.key" -m "$MSG" -x "$T/m1.minisig" </dev/null >/dev/null 2>&1
ok $? "minisign -S signs with a key aivet generated"
minisign -Vm "$MSG" -x "$T/m1.minisig" -p "$KEYS/aivet.pub" >/dev/null 2>&1
ok $? "minisign verifies that signature with aivet's public key"

# ---- aivet signs; minisign verifies ----
run key sign "$MSG"
is "$rc" 0 "aivet key sign succeeds"
is "$out" "signature written to $MSG.minisig" "and says where"
minisign -Vm "$MSG" -p "$KEYS/aivet.pub" >/dev/null 2>&1
ok $? "minisign verifies aivet's signature"
like "$(sed -n 3p "$MSG.minisig")" "^trusted comment: timestamp:[0-9]+	file:message.txt	hashed$" \
	"default trusted comment is minisign's"

# ---- a key made by minisign -G -W ----
minisign -G -W -p "$T/ms.pub" -s "$T/ms.key" >/dev/null 2>&1
msid=$(sed -n 's/^untrusted comment: minisign public key //p' "$T/ms.pub")
run key import "$T/ms.key" --name fromminisign
is "$rc" 0 "key import reads a minisign -G -W key"
like "$out" "^key fromminisign imported \(key id $msid\)" "with minisign's key id"
cmp -s "$T/ms.key" "$KEYS/fromminisign.key"
ok $? "the secret key file is kept as it was"
is "$(sed -n 2p "$KEYS/fromminisign.pub")" "$(sed -n 2p "$T/ms.pub")" "the public key matches minisign's"
run key sign "$MSG" --key fromminisign --trusted-comment "imported key"
minisign -Vm "$MSG" -p "$T/ms.pub" >/dev/null 2>&1
ok $? "aivet signs with a minisign-made key and minisign verifies"

printf 'untrusted comment: x\nnot base64!\n' > "$T/bad.key"
run key import "$T/bad.key" --name bad
is "$rc" 2 "a malformed key file is refused"
is "$errout" "aivet: $T/bad.key: line 2: not the base64 of a 158-byte minisign key" "naming file and line"

# ---- encrypted key (interactive scrypt cost keeps the test fast) ----
printf 'hunter2\n' > "$T/pw"
printf 'wrong\n' > "$T/wrongpw"
export AIVET_KEY_PASSWORD_FILE="$T/pw"; run key generate --name enc --kdf-cost interactive; unset AIVET_KEY_PASSWORD_FILE
is "$rc" 0 "key generate with a passphrase from AIVET_KEY_PASSWORD_FILE"
like "$out" "secret key  $KEYS/enc.key \(encrypted\)" "reports the key as encrypted"
is "$(sed -n 2p "$KEYS/enc.key" | base64 -d | od -An -tx1 -N6 | tr -d ' ')" "456453634232" \
	"secret key header: Ed, kdf Sc, B2"
printf 'hunter2\n' | minisign -S -s "$KEYS/enc.key" -m "$MSG" -x "$T/enc.minisig" >/dev/null 2>&1
ok $? "minisign decrypts aivet's encrypted key with the passphrase and signs"
minisign -Vm "$MSG" -x "$T/enc.minisig" -p "$KEYS/enc.pub" >/dev/null 2>&1
ok $? "and the signature verifies"
export AIVET_KEY_PASSWORD_FILE="$T/wrongpw"; run key sign "$MSG" --key enc; unset AIVET_KEY_PASSWORD_FILE
is "$rc" 2 "a wrong passphrase is refused"
is "$errout" "aivet: $KEYS/enc.key: wrong passphrase (or the key file is corrupt)" "and named"
export AIVET_KEY_PASSWORD_FILE="$T/pw"; run key sign "$MSG" --key enc; unset AIVET_KEY_PASSWORD_FILE
is "$rc" 0 "the right passphrase signs"
minisign -Vm "$MSG" -p "$KEYS/enc.pub" >/dev/null 2>&1
ok $? "minisign verifies a signature made with aivet's encrypted key"

run key generate --kdf-cost cheap --name x --no-password
is "$rc" 2 "an unknown --kdf-cost is refused"

run key list
is "$out" "NAME                     KEY ID           SECRET KEY
aivet                    $id NOT encrypted
enc                      $(sed -n 's/^untrusted comment: minisign public key //p' "$KEYS/enc.pub") encrypted
fromminisign             $msid NOT encrypted" "key list shows every key, sorted"
run key list --json
is "$(printf "%s\n" "$out" | json '[.[].name] | join(",")')" "aivet,enc,fromminisign" "key list --json"

run key show nosuch
is "$rc" 2 "show of an unknown key fails"
is "$errout" "aivet: no key named 'nosuch' ($KEYS/nosuch.pub); create one with 'aivet key generate'" \
	"and says how to make one"

done_testing
