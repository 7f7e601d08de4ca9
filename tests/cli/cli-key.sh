#!/bin/sh
# tests/cli/cli-key.sh: aivet key — generate, import, list, show, sign — and
# interoperation with the stock minisign tool in both directions.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/tui-lib.sh"
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

head -c 5000 /dev/zero > "$T/huge.key"
run key import "$T/huge.key" --name huge
is "$errout" "aivet: $T/huge.key: larger than a key file can be" "an oversized key file is refused"

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

# ---- the passphrase from a terminal: asked twice, never echoed ----
tui_start 80x10 key generate --name tty --kdf-cost interactive
tui_wait "passphrase for the new key:"; ok $? "key generate asks for a passphrase on the terminal"
tui_type "swordfish"
sleep 0.3
unlike "$(tui_screen)" "swordfish" "the passphrase is not echoed"
tui_keys Enter
tui_wait "passphrase again:"; ok $? "and asks again"
tui_type "swordfish"
tui_keys Enter
tui_wait "[exit 0]"; ok $? "the key is written"
tui_stop
printf 'swordfish\n' > "$T/ttypw"
export AIVET_KEY_PASSWORD_FILE="$T/ttypw"; run key sign "$MSG" --key tty; unset AIVET_KEY_PASSWORD_FILE
is "$rc" 0 "the passphrase typed on the terminal decrypts the key"
tui_start 80x10 key generate --name typo --kdf-cost interactive
tui_wait "passphrase for the new key:"
tui_type "one"
tui_keys Enter
tui_wait "passphrase again:"
tui_type "two"
tui_keys Enter
tui_wait "[exit 2]"; ok $? "different passphrases are refused"
like "$(tui_screen)" "aivet: the passphrases do not match" "and said so"
ok "$(test ! -e "$KEYS/typo.key"; echo $?)" "nothing was written"
tui_stop
rm "$KEYS/tty.key" "$KEYS/tty.pub"

run key list
encid=$(sed -n 's/^untrusted comment: minisign public key //p' "$KEYS/enc.pub")
is "$out" "$(printf '%-24s %-8s %-16s %-56s %s\n' NAME TRUST "KEY ID" "PUBLIC KEY" "SECRET KEY" \
	aivet own "$id" "$pk" "NOT encrypted" \
	enc own "$encid" "$(sed -n 2p "$KEYS/enc.pub")" encrypted \
	fromminisign own "$msid" "$(sed -n 2p "$T/ms.pub")" "NOT encrypted")" \
	"key list shows every key, sorted, with its whole public key"
run key list --json
is "$(printf "%s\n" "$out" | json '[.[].name] | join(",")')" "aivet,enc,fromminisign" "key list --json"

# ---- trust is a public key, not a key id ----
# A signed bundle from our own key; an auditor (own config, no keys) and an
# attacker who makes a key with our key id, as anyone can.
"$AIVET" vendor add acme >/dev/null
"$AIVET" report acme --out "$T/bundle" >/dev/null
B="$T/bundle"
cp "$KEYS/aivet.pub" "$T/ours.pub"
run verify "$B"
is "$rc" 0 "our own bundle verifies: own keys are trusted"
is "$(printf '%s\n' "$out" | sed -n 3,4p)" "  signer       $pk
  trusted as   own key 'aivet'" "verify prints the whole public key and why it is trusted"

# forge_key NAME KEYID-SOURCE-PUB: a fresh key whose key id is copied from another key
# (the id is 8 bytes in the key files; the secret key's checksum is recomputed).
forge_key() {
	XDG_CONFIG_HOME="$T/mallory" "$AIVET" key generate --name "$1" --no-password >/dev/null
	python3 - "$T/mallory/aivet/keys/$1" "$2" <<'PY'
import base64, hashlib, sys
base, src = sys.argv[1], sys.argv[2]
keynum = base64.b64decode(open(src).read().splitlines()[1])[2:10]
pub = bytearray(base64.b64decode(open(base + ".pub").read().splitlines()[1]))
pub[2:10] = keynum
sec = bytearray(base64.b64decode(open(base + ".key").read().splitlines()[1]))
sec[54:62] = keynum
sec[126:158] = hashlib.blake2b(b"Ed" + bytes(sec[54:62]) + bytes(sec[62:126]), digest_size=32).digest()
kid = "%X" % int.from_bytes(keynum, "little")
open(base + ".pub", "w").write("untrusted comment: minisign public key %s\n%s\n" % (kid, base64.b64encode(pub).decode()))
open(base + ".key", "w").write("untrusted comment: minisign secret key (unencrypted)\n%s\n" % base64.b64encode(sec).decode())
PY
}
# resign DIR KEYNAME: what the attacker does with stock tools after editing report.json.
resign() {
	cp "$T/mallory/aivet/keys/$2.pub" "$1/aivet.pub"
	(cd "$1" && grep -v -e ' aivet.pub$' -e ' report.json$' SHA256SUMS > ../S.tmp &&
		sha256sum aivet.pub report.json >> ../S.tmp && sort -k2 ../S.tmp > SHA256SUMS && rm ../S.tmp)
	tc=$(sed -n 's/^trusted comment: //p' "$1/SHA256SUMS.minisig")
	XDG_CONFIG_HOME="$T/mallory" "$AIVET" key sign "$1/SHA256SUMS" --key "$2" --trusted-comment "$tc" >/dev/null
}
forge_key twin "$KEYS/aivet.pub"
twinpk=$(sed -n 2p "$T/mallory/aivet/keys/twin.pub")
is "$(sed -n 1p "$T/mallory/aivet/keys/twin.pub")" "untrusted comment: minisign public key $id" \
	"the attacker's key carries our key id"
cp -r "$B" "$T/forged"
jq -c '.summary.rating = "acceptable"' "$B/report.json" > "$T/forged/report.json"
resign "$T/forged" twin
minisign -Vm "$T/forged/SHA256SUMS" -p "$T/forged/aivet.pub" >/dev/null 2>&1
ok $? "stock minisign accepts the forged bundle with the bundle's own aivet.pub"
minisign -Vm "$T/forged/SHA256SUMS" -p "$T/ours.pub" >/dev/null 2>&1 && r=0 || r=1
is "$r" 1 "and refuses it with the key obtained out of band"
forgery="FORGERY: signed by key $twinpk, which claims key id $id but is not the trusted key with that id"
run verify "$T/forged"
is "$rc:$out" "1:bundle $T/forged FAILED verification
  parts        signature failed, hashes verified, report verified, time-stamp none
  $forgery (own key 'aivet': $pk)" "rule: same key id, other key bytes = forgery (exit 1)"
run verify "$T/forged" --json
is "$(printf '%s' "$out" | json '[.ok, .signer_trusted, .trust, .problems[0]] | @json')" \
	"[false,false,null,\"$forgery (own key 'aivet': $pk)\"]" "verify --json: ok false, not trusted, the forgery named"
run verify "$T/forged" --pubkey "$T/ours.pub"
is "$rc:$out" "1:bundle $T/forged FAILED verification
  parts        signature failed, hashes verified, report verified, time-stamp none
  $forgery (--pubkey $T/ours.pub: $pk)" "with --pubkey: the same forgery named"

# An auditor with an empty keyring: a good signature alone is not enough.
AUD="$T/auditor"
XDG_CONFIG_HOME="$AUD" "$AIVET" verify "$B" >"$T/out" 2>"$T/err" && rc=0 || rc=$?
is "$rc:$(cat "$T/out")" "1:bundle $B FAILED verification
  parts        signature failed, hashes verified, report verified, time-stamp none
  signature valid, signer not trusted: $pk
Compare that key with the signer's public key obtained out of band (not from the bundle); if they are the same, 'aivet key trust FILE' or 'aivet verify DIR --pubkey FILE'." \
	"rule: a good signature by an unknown key exits 1 naming the whole key"
is "$(cat "$T/err")" "aivet: $B: verification failed (1 problem)" "and fails"
XDG_CONFIG_HOME="$AUD" "$AIVET" verify "$B" --json > "$T/out" || true
is "$(json '[.ok, .signer_public_key, .signer_trusted] | @json' < "$T/out")" "[false,\"$pk\",false]" \
	"verify --json: the signer's key, not trusted"
XDG_CONFIG_HOME="$AUD" "$AIVET" verify "$B" --pubkey "$T/ours.pub" > "$T/out" && rc=0 || rc=$?
is "$rc:$(sed -n 4p "$T/out")" "0:  trusted as   --pubkey $T/ours.pub" "a key given with --pubkey is trusted"
XDG_CONFIG_HOME="$AUD" "$AIVET" key trust "$T/ours.pub" --name acme-signer > "$T/out" && rc=0 || rc=$?
is "$rc:$(cat "$T/out")" "0:key acme-signer trusted (key id $id)
  public key  $pk
  file        $AUD/aivet/trusted/acme-signer.pub" "key trust FILE --name NAME"
XDG_CONFIG_HOME="$AUD" "$AIVET" verify "$B" --json > "$T/out" && rc=0 || rc=$?
is "$rc:$(json '[.ok, .signer_trusted, .trust.source, .trust.name] | @json' < "$T/out")" \
	"0:[true,true,\"trusted-key\",\"acme-signer\"]" "a trusted signer's bundle verifies, and JSON says why"
XDG_CONFIG_HOME="$AUD" "$AIVET" verify "$T/forged" > "$T/out" && rc=0 || rc=$?
is "$rc:$(sed -n 3p "$T/out")" "1:  $forgery (trusted key 'acme-signer': $pk)" \
	"the forged bundle is named a forgery against the trusted key"
# key untrust takes the trust back: the same bundle no longer verifies.
XDG_CONFIG_HOME="$AUD" "$AIVET" key untrust acme-signer > "$T/out" 2>&1 && rc=0 || rc=$?
is "$rc:$(cat "$T/out")" "0:key acme-signer no longer trusted (key id $id)
  public key  $pk
  removed     $AUD/aivet/trusted/acme-signer.pub" "key untrust NAME"
XDG_CONFIG_HOME="$AUD" "$AIVET" verify "$B" --json > "$T/out" && rc=0 || rc=$?
is "$rc:$(json '[.ok, .signer_trusted, .parts.signature] | @json' < "$T/out")" '1:[false,false,"failed"]' \
	"once untrusted, the signer's bundle fails verify again"
XDG_CONFIG_HOME="$AUD" "$AIVET" key untrust acme-signer > "$T/out" 2>&1 && rc=0 || rc=$?
is "$rc:$(cat "$T/out")" "2:aivet: no trusted key 'acme-signer' (see 'aivet key list')" "untrusting it twice is refused"
run key untrust aivet
is "$rc:$errout" "2:aivet: 'aivet' is an own signing key, not a trusted signer's: untrust removes trusted keys only" \
	"an own key is not untrusted"
XDG_CONFIG_HOME="$AUD" "$AIVET" key trust "$T/ours.pub" --name acme-signer > /dev/null
XDG_CONFIG_HOME="$AUD" "$AIVET" key trust "$T/mallory/aivet/keys/twin.pub" > "$T/out" 2>"$T/err" && rc=0 || rc=$?
is "$rc:$(cat "$T/err")" "2:aivet: $T/mallory/aivet/keys/twin.pub: key id $id belongs to trusted key 'acme-signer' ($pk), and this is a different key with the same id ($twinpk): refused, a key id names one key" \
	"key trust refuses a second key with a trusted key's id"
XDG_CONFIG_HOME="$AUD" "$AIVET" key trust "$T/ours.pub" > "$T/out" && rc=0 || rc=$?
is "$rc:$(cat "$T/out")" "0:key $id ($pk) is already trusted: trusted key 'acme-signer'" "trusting a key twice is a no-op"
XDG_CONFIG_HOME="$AUD" "$AIVET" key list > "$T/out"
is "$(cat "$T/out")" "$(printf '%-24s %-8s %-16s %-56s %s\n' NAME TRUST "KEY ID" "PUBLIC KEY" "SECRET KEY" \
	acme-signer trusted "$id" "$pk" -)" "key list shows trusted keys"
XDG_CONFIG_HOME="$AUD" "$AIVET" key list --json > "$T/out"
is "$(json '.[0] | [.name, .trust, .key_id, .public_key, .secret_key_file] | @json' < "$T/out")" \
	"[\"acme-signer\",\"trusted\",\"$id\",\"$pk\",null]" "key list --json: trust"

# An attacker key with its own id: a valid signature, never a trusted one.
XDG_CONFIG_HOME="$T/mallory" "$AIVET" key generate --name other --no-password >/dev/null
cp -r "$B" "$T/forged2"
jq -c '.summary.rating = "acceptable"' "$B/report.json" > "$T/forged2/report.json"
resign "$T/forged2" other
run verify "$T/forged2"
is "$rc:$(printf '%s\n' "$out" | sed -n 3p)" \
	"1:  signature valid, signer not trusted: $(sed -n 2p "$T/mallory/aivet/keys/other.pub")" \
	"a re-signed bundle under another key id: valid signature, signer not trusted"

run key show nosuch
is "$rc" 2 "show of an unknown key fails"
is "$errout" "aivet: no key named 'nosuch' ($KEYS/nosuch.pub); create one with 'aivet key generate'" \
	"and says how to make one"

done_testing
