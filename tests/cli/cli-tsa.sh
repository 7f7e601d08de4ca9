#!/bin/sh
# tests/cli/cli-tsa.sh: RFC 3161 time-stamps on report bundles and audit
# checkpoints against a real TSA on loopback: a test CA and TSA certificates
# made here with openssl req/x509/ca, 'openssl ts -reply' answering behind
# tests/lib/tsa-server.py. A good token verifies with aivet verify and with the
# stock 'openssl ts -verify' of VERIFY.txt; every broken case (edited
# SHA256SUMS, a token for another imprint, a nonce mismatch, an untrusted TSA,
# a certificate without the time-stamping purpose, an expired one, a TSA down,
# answering garbage, answering without end, redirecting) fails with its reason.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/report-fixture.sh"
. "$TESTS_SRCDIR/lib/tsa-lib.sh"
make_fixture
"$AIVET" key generate --no-password >/dev/null
tsa_start

# ---- a good token ----
B="$T/good"
run report acme --out "$B" --tsa "$URL/good"
is "$rc" 0 "report --tsa succeeds against the loopback TSA"
like "$out" "^  time-stamp   time attested by TSA $TSA_SUBJECT at $ISO\$" "and its summary gives the attested time"
is "$(cd "$B" && ls SHA256SUMS* TIMESTAMP.txt | tr '\n' ' ')" \
	"SHA256SUMS SHA256SUMS.minisig SHA256SUMS.tsa.pem SHA256SUMS.tsr TIMESTAMP.txt " \
	"the bundle holds the token, the TSA's certificates and the statement"
is "$(grep -c 'SHA256SUMS\.ts\|TIMESTAMP' "$B/SHA256SUMS")" 0 "none of them is in SHA256SUMS"
is "$(jq -c .time_stamp "$B/report.json")" "{\"tsa_url\":\"$URL/good\",\"token\":\"SHA256SUMS.tsr\"}" \
	"report.json records the TSA asked"
ATTESTED=$(sed -n 's/^time attested by TSA .* at //p' "$B/TIMESTAMP.txt")
is "$(head -1 "$B/TIMESTAMP.txt")" "time attested by TSA $TSA_SUBJECT at $ATTESTED" "TIMESTAMP.txt states the attested time"
is "$(openssl ts -reply -in "$B/SHA256SUMS.tsr" -text 2>/dev/null | sed -n 's/^Time stamp: //p' |
	xargs -I{} date -u -d {} +%Y-%m-%dT%H:%M:%SZ)" "$ATTESTED" "which is the token's genTime"
# Markdown escapes "://" in text (no autolink from a string), so the URL reads http\://...
like "$(cat "$B/report.md")" "- Time: time attested by TSA $(printf '%s' "$URL" | sed 's|://|\\\\://|')/good at the time its token says" \
	"report.md states the time is attested by the TSA"
like "$(cat "$B/report.html")" "<dt>Time</dt><dd>time attested by TSA $URL/good at the time its token says" \
	"report.html too"
is "$(openssl ts -reply -in "$B/SHA256SUMS.tsr" -text 2>/dev/null | sed -n 's/^Hash Algorithm: //p')" sha256 \
	"the imprint is SHA-256"
is "$(openssl dgst -sha256 -r "$B/SHA256SUMS" | cut -c1-64)" \
	"$(openssl ts -reply -in "$B/SHA256SUMS.tsr" -text 2>/dev/null |
	sed -n '/Message data:/,/Serial/p' | sed -n 's/^ *[0-9a-f]\{4\} - //p' | cut -c1-48 | tr -d ' -' | tr -d '\n')" \
	"of SHA256SUMS"

# Not yet trusted: the token is there, the TSA is not. The signature and the
# hashes still verify (exit 0); the time is "not verified", which is no forgery.
run verify "$B"
is "$rc" 0 "verify passes the signature and hashes while no TSA certificate is trusted"
is "$(printf '%s\n' "$out" | head -1)" "bundle $B: signature and hashes verified; time not verified" \
	"and says the time is not verified"
like "$out" "^  time-stamp   time not verified: SHA256SUMS.tsr: no trusted TSA certificate \('aivet tsa trust CERT', or --tsa-cert FILE\)\$" \
	"and why"
run verify "$B" --json
is "$(printf '%s' "$out" | jq -c '[.ok, .parts.signature, .parts.hashes, .parts.report, .parts.time_stamp, .time_stamp.state]')" \
	'[true,"verified","verified","verified","not verified","not verified"]' "verify --json names each part"
run verify "$B" --tsa-cert "$P/other-ca.pem"
is "$rc" 0 "a TSA that chains to no trusted certificate: time not verified, not a failure"
like "$out" "^  time-stamp   time not verified: SHA256SUMS.tsr: the TSA $TSA_SUBJECT is not trusted: self-signed certificate in certificate chain\$" \
	"and names the TSA and why"
# A token whose own signature is broken is a failure whoever trusts the TSA.
cp -r "$B" "$T/badsig"
/usr/bin/python3 -c 'import sys; p = sys.argv[1]; d = bytearray(open(p, "rb").read()); d[-1] ^= 1; open(p, "wb").write(d)' \
	"$T/badsig/SHA256SUMS.tsr"
run verify "$T/badsig"
is "$rc" 1 "a token with a broken signature fails verify, even with its TSA untrusted"
is "$(printf '%s\n' "$out" | sed -n 1,3p)" "bundle $T/badsig FAILED verification
  parts        signature verified, hashes verified, report verified, time-stamp failed
  SHA256SUMS.tsr: the TSA's signature on the token does not verify" "naming the part that failed"
run verify "$B" --tsa-cert "$P/ca.pem"
is "$rc" 0 "verify --tsa-cert CA passes"
like "$out" "^  generated    $ISO \(as the signer says\)
  time-stamp   time attested by TSA $TSA_SUBJECT at $ATTESTED\$" "and prints the attested time beside generated_at"
run tsa trust "$P/ca.pem"
is "$rc" 0 "tsa trust CERT"
FP=$(openssl x509 -in "$P/ca.pem" -outform DER | openssl dgst -sha256 -r | cut -c1-64)
is "$(printf '%s\n' "$out" | head -3)" "trusted TSA certificate CN=Test TSA CA,O=aivet tests
  issuer       CN=Test TSA CA,O=aivet tests
  SHA-256      $FP" "names the certificate and its fingerprint"
run tsa trust "$P/ca.pem"
like "$out" "^already trusted: TSA certificate" "trusting it again says so"
run tsa list --json
is "$(printf '%s' "$out" | jq -c '[.default_url, (.trusted[] | [.subject, .sha256, .ca, .timestamping])]')" \
	"[null,[\"CN=Test TSA CA,O=aivet tests\",\"$FP\",true,false]]" "tsa list --json"
run verify "$B"
is "$rc" 0 "with the CA trusted, verify passes"
run verify "$B" --json
is "$(printf '%s' "$out" | jq -c '[.ok, .time_stamp.attested, .time_stamp.time, .time_stamp.tsa, .time_stamp.trusted_as, .generated_at]')" \
	"[true,true,\"$ATTESTED\",\"$TSA_SUBJECT\",\"CN=Test TSA CA,O=aivet tests\",$(jq -c .generated_at "$B/report.json")]" "verify --json says the same"
# The broken signature once more, now that its TSA chains to a trusted
# certificate: trust covers the signer, never a signature that does not hold.
run verify "$T/badsig" --json
is "$rc $(printf '%s' "$out" | jq -c '[.ok, .parts.time_stamp, .time_stamp.attested, .time_stamp.trusted_as]')" \
	'1 [false,"failed",false,null]' "a trusted TSA's token with a broken signature fails verify, not attested"
run verify "$T/badsig"
is "$(printf '%s\n' "$out" | sed -n 3p)" "  SHA256SUMS.tsr: the TSA's signature on the token does not verify" \
	"naming the signature, not the trust"

# The stock check, as VERIFY.txt gives it.
recipe=$(grep '^    openssl ts -verify' "$B/VERIFY.txt" | sed 's/^    //')
is "$recipe" "openssl ts -verify -data SHA256SUMS -in SHA256SUMS.tsr -CAfile TSA-CA.pem -untrusted SHA256SUMS.tsa.pem" \
	"VERIFY.txt gives the openssl ts -verify recipe"
cp "$P/ca.pem" "$T/TSA-CA.pem"
is "$(cd "$B" && eval "$(printf '%s' "$recipe" | sed "s|TSA-CA.pem|$T/TSA-CA.pem|")" 2>/dev/null)" "Verification: OK" \
	"and openssl ts -verify passes it"
# What VERIFY.txt says the other two commands show is what they show: the
# attested time, a TSA: line the token may leave unspecified (this TSA does),
# and the signer among the token's certificates, named as TIMESTAMP.txt names it.
reply=$(grep '^    openssl ts -reply .* -text$' "$B/VERIFY.txt" | sed 's/^    //')
is "$(cd "$B" && eval "$reply" 2>/dev/null | sed -n 's/^TSA: //p')" "unspecified" \
	"the token names no TSA, as VERIFY.txt warns it may not"
like "$(cat "$B/VERIFY.txt")" "many TSAs leave it 'unspecified'" "VERIFY.txt says so"
certs=$(grep '^    openssl ts -reply .* -token_out | openssl pkcs7' "$B/VERIFY.txt" | sed 's/^    //')
tsa_cn=$(printf '%s' "$TSA_SUBJECT" | sed 's/^CN=\([^,]*\),.*/\1/')
like "$(cd "$B" && eval "$certs" 2>/dev/null | grep '^subject=')" "CN ?= ?$tsa_cn" \
	"the third command lists the signer's certificate, whose subject TIMESTAMP.txt names"
is "$(grep -A1 'SHA256SUMS and SHA256SUMS.minisig may be present' "$B/VERIFY.txt")" \
	"SHA256SUMS and SHA256SUMS.minisig may be present
(and the time-stamp's SHA256SUMS.tsr, SHA256SUMS.tsa.pem and TIMESTAMP.txt," \
	"VERIFY.txt lists the time-stamp's files among those that may be present"
run report acme --out "$T/nostamp" --tsa none
is "$(grep -c "time-stamp's SHA256SUMS.tsr" "$T/nostamp/VERIFY.txt")" 0 "a bundle without a time-stamp does not list them"

# tsa untrust takes the trust back (by fingerprint prefix or by the file):
# the time is then not verified again, and JSON says which part.
run tsa untrust "$(printf '%.12s' "$FP")"
is "$rc:$out" "0:no longer trusted: TSA certificate CN=Test TSA CA,O=aivet tests
  issuer       CN=Test TSA CA,O=aivet tests
  SHA-256      $FP
  kind         CA" "tsa untrust FINGERPRINT"
run verify "$B" --json
is "$rc:$(printf '%s' "$out" | jq -c '[.ok, .parts.time_stamp, .time_stamp.attested]')" '0:[true,"not verified",false]' \
	"once untrusted, the time is not verified"
run tsa untrust "$P/ca.pem"
is "$rc:$errout" "2:aivet: no trusted TSA certificate $FP (see 'aivet tsa list')" "untrusting it again is refused"
run tsa trust "$P/ca.pem"
run tsa untrust "$P/ca.pem" --json
is "$rc:$(printf '%s' "$out" | jq -c '[.sha256, .removed]')" "0:[\"$FP\",true]" "tsa untrust CERT --json"
run tsa untrust 1234
is "$rc:$errout" "2:aivet: 1234: No such file or directory" "a word that is neither a fingerprint nor a file"
run tsa trust "$P/ca.pem"

# ---- broken tokens fail verify, each with its reason ----
SUMS_REASON="SHA256SUMS.tsr: the token is for another imprint than the SHA-256 of SHA256SUMS"
cp -r "$B" "$T/edited"
printf '%s  extra.txt\n' "$(printf x | sha256sum | cut -c1-64)" >> "$T/edited/SHA256SUMS"
run verify "$T/edited"
is "$rc" 1 "SHA256SUMS edited after stamping fails"
like "$out" "^  $SUMS_REASON\$" "for the imprint"
(cd "$T/edited" && openssl ts -verify -data SHA256SUMS -in SHA256SUMS.tsr -CAfile "$T/TSA-CA.pem" \
	-untrusted SHA256SUMS.tsa.pem >/dev/null 2>&1)
is "$?" 1 "and openssl ts -verify fails it too"

run report acme --out "$T/other" --tsa "$URL/good"
cp -r "$B" "$T/swapped"
cp "$T/other/SHA256SUMS.tsr" "$T/other/SHA256SUMS.tsa.pem" "$T/swapped/"
run verify "$T/swapped"
is "$rc" 1 "a token for another imprint (another bundle's) fails"
is "$(printf '%s\n' "$out" | grep -c "^  $SUMS_REASON\$")" 1 "for the imprint"

cp -r "$B" "$T/statement"
sed -i '1s/ at .*/ at 2020-01-01T00:00:00Z/' "$T/statement/TIMESTAMP.txt"
run verify "$T/statement"
is "$rc" 1 "a TIMESTAMP.txt that says another time fails"
like "$out" "^  TIMESTAMP.txt: does not say what the token attests \(time attested by TSA $TSA_SUBJECT at $ATTESTED\)\$" \
	"naming what the token says"

cp -r "$B" "$T/garbled"
printf 'not a token' > "$T/garbled/SHA256SUMS.tsr"
run verify "$T/garbled"
like "$out" "^  SHA256SUMS.tsr: not an RFC 3161 time-stamp response\$" "a garbled token is named"

# A token signed with a certificate that is not for time-stamping ('openssl ts
# -reply' refuses to sign with one, so its TSTInfo is signed again with CMS).
cp -r "$B" "$T/nopurpose"
openssl ts -reply -in "$B/SHA256SUMS.tsr" -token_out -out "$T/tok.der" 2>/dev/null
openssl cms -verify -noverify -inform DER -in "$T/tok.der" -out "$T/tst.der" 2>/dev/null
openssl cms -sign -binary -nodetach -nosmimecap -in "$T/tst.der" -econtent_type 1.2.840.113549.1.9.16.1.4 \
	-signer "$P/plain.pem" -inkey "$P/plain.key" -md sha256 -outform DER -out "$T/plain-tok.der" 2>/dev/null
/usr/bin/python3 -c '
import sys
tok = open(sys.argv[1], "rb").read()
body = b"\x30\x03\x02\x01\x00" + tok
n = len(body)
head = b"\x30" + (bytes([n]) if n < 128 else b"\x81" + bytes([n]) if n < 256 else b"\x82" + n.to_bytes(2, "big"))
open(sys.argv[2], "wb").write(head + body)' "$T/plain-tok.der" "$T/nopurpose/SHA256SUMS.tsr"
cp "$P/plain.pem" "$T/nopurpose/SHA256SUMS.tsa.pem"
run verify "$T/nopurpose"
is "$rc" 1 "a TSA certificate without the time-stamping purpose fails"
like "$out" "^  SHA256SUMS.tsr: the TSA certificate CN=Test TSA plain,O=aivet tests is not for time-stamping \(extendedKeyUsage timeStamping, critical\)\$" \
	"for its purpose"

# A TSA whose certificate expired in 2021 still answers; report applies
# verify's certificate rules before writing, so no bundle is made of it.
before=$(db_snapshot)
run report acme --out "$T/expired" --tsa "$URL/expired"
like "$rc:$errout" "^3:aivet: TSA $URL/expired: SHA256SUMS.tsr: the TSA certificate CN=Test TSA expired,O=aivet tests was not valid at the attested time $ISO \(valid from 2020-01-01T00:00:00Z to 2021-01-01T00:00:00Z\)\$" \
	"report --tsa refuses a token from a certificate expired in 2021 (exit 3), naming its validity"
ok "$(test ! -e "$T/expired"; echo $?)" "and leaves no bundle behind"
is "$(db_snapshot)" "$before" "and records no report"
run report acme --out "$T/expired" --tsa "$URL/expired" --tsa-optional
is "$rc" 0 "with --tsa-optional the report is made"
like "$(cat "$T/expired/TIMESTAMP.txt")" "^time not attested: TSA $URL/expired: SHA256SUMS.tsr: the TSA certificate CN=Test TSA expired" \
	"and says the time is not attested, and why"
ok "$(test ! -e "$T/expired/SHA256SUMS.tsr"; echo $?)" "without the token"
# The token itself, kept by hand beside another bundle, still fails verify.
openssl ts -query -data "$B/SHA256SUMS" -sha256 -cert -out "$T/exp.tsq" 2>/dev/null
openssl ts -reply -config "$P/tsa.cnf" -section tsa_expired -queryfile "$T/exp.tsq" -out "$T/exp.tsr" 2>/dev/null
cp -r "$B" "$T/expired-by-hand"
cp "$T/exp.tsr" "$T/expired-by-hand/SHA256SUMS.tsr"
cp "$P/old.pem" "$T/expired-by-hand/SHA256SUMS.tsa.pem"
run verify "$T/expired-by-hand"
is "$rc" 1 "a token from the expired certificate fails verify"
like "$out" "^  SHA256SUMS.tsr: the TSA certificate CN=Test TSA expired,O=aivet tests was not valid at the attested time $ISO \(valid from 2020-01-01T00:00:00Z to 2021-01-01T00:00:00Z\)\$" \
	"for its validity at the attested time"

# ---- a TSA that fails the request: exit 3, nothing left behind ----
before=$(db_snapshot)
for c in "nonce|$URL/nonce|TSA $URL/nonce: the response's nonce is not the request's" \
	"imprint|$URL/imprint|TSA $URL/imprint: the token is for another imprint than the SHA-256 of SHA256SUMS" \
	"down|$DOWN/|TSA $DOWN/: cannot reach it: Couldn't connect to server" \
	"garbage|$URL/garbage|TSA $URL/garbage: the answer is not an RFC 3161 time-stamp response" \
	"huge|$URL/huge|TSA $URL/huge: the answer exceeded the 1048576-byte cap (not read further)" \
	"redirect|$URL/redirect|TSA $URL/redirect: answered HTTP 302, a redirect to $URL/good, which is not followed"; do
	name=${c%%|*}; rest=${c#*|}; u=${rest%%|*}; why=${rest#*|}
	run report acme --out "$T/fail-$name" --tsa "$u"
	is "$rc:$errout" "3:aivet: $why" "TSA $name: report fails (exit 3) with its reason"
	ok "$(test ! -e "$T/fail-$name"; echo $?)" "TSA $name: and leaves no bundle behind"
done
is "$(db_snapshot)" "$before" "and the failed reports changed nothing in the database"
is "$(ls -a "$T" | grep -c '^\.fail-\|\.tmp')" 0 "nor a temporary directory"

# --tsa-optional: the bundle is written, its time not attested.
run report acme --out "$T/optional" --tsa "$DOWN/" --tsa-optional
is "$rc" 0 "--tsa-optional writes the bundle when the TSA is down"
like "$out" "^  time-stamp   time not attested: TSA $DOWN/: cannot reach it: Couldn't connect to server\$" \
	"and its summary says the time is not attested"
ok "$(test ! -e "$T/optional/SHA256SUMS.tsr"; echo $?)" "no token"
is "$(head -1 "$T/optional/TIMESTAMP.txt")" "time not attested: TSA $DOWN/: cannot reach it: Couldn't connect to server" \
	"TIMESTAMP.txt says why"
run verify "$T/optional"
is "$rc" 0 "the bundle verifies"
like "$out" "^  time-stamp   time not attested\$" "and says time not attested"

# A bundle without a token verifies as before.
run report acme --out "$T/plain"
is "$rc" 0 "report without a TSA"
like "$out" "^  time-stamp   time not attested\$" "says time not attested"
like "$(cat "$T/plain/report.md")" "- Time: time not attested \(no time-stamp was requested for this bundle\)" \
	"and so does report.md"
run verify "$T/plain" --json
is "$(printf '%s' "$out" | jq -c '[.ok, .time_stamp.attested, .time_stamp.time]')" "[true,false,null]" \
	"verify --json: not attested"

# ---- the configured TSA ----
run tsa url "$URL/good"
is "$out" "default TSA $URL/good" "tsa url URL sets the default TSA"
run tsa url
is "$out" "$URL/good" "tsa url shows it"
run report acme --out "$T/configured"
ok "$(test -s "$T/configured/SHA256SUMS.tsr"; echo $?)" "report asks the configured TSA"
run report acme --out "$T/none" --tsa none
ok "$(test ! -e "$T/none/SHA256SUMS.tsr"; echo $?)" "--tsa none asks none"
run tsa url "$URL/a" "$URL/b"
is "$rc:$(echo "$errout" | head -1)" "2:aivet: tsa url takes at most one URL" "tsa url: one URL at most"
run tsa url "$URL/a" --unset
is "$rc:$(echo "$errout" | head -1)" "2:aivet: give a URL or --unset, not both" "tsa url: a URL or --unset"
run tsa url "ftp://example/"
is "$rc:$errout" "2:aivet: URL ftp://example/: want an http:// or https:// URL" "a URL that is not http(s) is refused"
run report acme --out "$T/cred" --tsa "http://user:secret@127.0.0.1:1/"
is "$rc" 2 "a TSA URL with a credential is refused"

# ---- audit checkpoints (on a database of aivet's own writing: the fixture's
# rows were added behind its back, so its chain would not be anchored) ----
AIVET_DB="$T/cp.db"
"$AIVET" vendor add checked >/dev/null
run audit checkpoint --out "$T/cp" --tsa "$URL/good"
is "$rc" 0 "audit checkpoint --tsa"
like "$out" "^  time-stamp   time attested by TSA $TSA_SUBJECT at $ISO, token $T/cp.tsr\$" "prints the attested time"
run audit verify --against "$T/cp"
is "$rc" 0 "audit verify --against a time-stamped checkpoint"
like "$out" "^  time attested by TSA $TSA_SUBJECT at $ISO\$" "and prints when it existed"
cp "$B/SHA256SUMS.tsr" "$T/cp.tsr"
run audit verify --against "$T/cp"
is "$rc:$errout" "1:aivet: --against $T/cp: the checkpoint's time-stamp does not verify: $T/cp.tsr: the token is for another imprint than the SHA-256 of $T/cp" \
	"a checkpoint with another imprint's token fails"
run tsa url --unset
run audit checkpoint --out "$T/cp-down" --tsa "$DOWN/"
is "$rc:$errout" "3:aivet: TSA $DOWN/: cannot reach it: Couldn't connect to server" "a checkpoint whose TSA is down fails"
ok "$(test ! -e "$T/cp-down" && test ! -e "$T/cp-down.minisig"; echo $?)" "and leaves nothing behind"

done_testing
