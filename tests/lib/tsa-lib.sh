# tests/lib/tsa-lib.sh: sourced by the time-stamp tests after lib.sh. tsa_start
# makes a test PKI with openssl req/x509/ca in $P (a CA, a TSA certificate
# with extendedKeyUsage timeStamping, critical, one without that purpose, an
# expired TSA certificate, another CA) and starts tests/lib/tsa-server.py, where
# 'openssl ts -reply' answers, on loopback: $URL is it, $DOWN a port nothing
# listens on, $TSA_SUBJECT the TSA certificate's subject as aivet prints it.

tsa_start() {
	# ---- a test PKI: a CA, a TSA certificate (extendedKeyUsage timeStamping,
	# critical), one without that purpose, an expired TSA, another CA ----
	P="$T/pki"
	mkdir -p "$P/caroot"
	cat > "$P/ext.cnf" <<EOF
[ca]
basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash
[tsa]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=critical,timeStamping
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
[plain]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOF
	ec_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
	for k in ca other-ca tsa plain old; do ec_key "$P/$k.key"; done
	openssl req -new -x509 -key "$P/ca.key" -subj "/O=aivet tests/CN=Test TSA CA" -days 3650 \
		-config "$P/ext.cnf" -extensions ca -out "$P/ca.pem" 2>/dev/null
	openssl req -new -x509 -key "$P/other-ca.key" -subj "/O=aivet tests/CN=Other CA" -days 3650 \
		-config "$P/ext.cnf" -extensions ca -out "$P/other-ca.pem" 2>/dev/null
	for n in tsa plain; do
		openssl req -new -key "$P/$n.key" -subj "/O=aivet tests/CN=Test TSA $n" -out "$P/$n.csr" 2>/dev/null
		openssl x509 -req -in "$P/$n.csr" -CA "$P/ca.pem" -CAkey "$P/ca.key" -set_serial "0x$(openssl rand -hex 8)" \
			-days 365 -extfile "$P/ext.cnf" -extensions $n -out "$P/$n.pem" 2>/dev/null
	done
	# 'openssl x509' cannot date a certificate in the past; 'openssl ca' can.
	: > "$P/caroot/index.txt"
	echo 1000 > "$P/caroot/serial"
	cat > "$P/ca.cnf" <<EOF
[ca]
default_ca = ca1
[ca1]
database = $P/caroot/index.txt
serial = $P/caroot/serial
new_certs_dir = $P/caroot
default_md = sha256
policy = pol
unique_subject = no
[pol]
organizationName = optional
commonName = supplied
EOF
	openssl req -new -key "$P/old.key" -subj "/O=aivet tests/CN=Test TSA expired" -out "$P/old.csr" 2>/dev/null
	openssl ca -batch -config "$P/ca.cnf" -cert "$P/ca.pem" -keyfile "$P/ca.key" -in "$P/old.csr" -notext \
		-startdate 20200101000000Z -enddate 20210101000000Z -extfile "$P/ext.cnf" -extensions tsa \
		-out "$P/old.pem" 2>/dev/null
	echo 01 > "$P/tsaserial"
	for s in good:tsa expired:old; do
		cat >> "$P/tsa.cnf" <<EOF
[tsa_${s%%:*}]
serial = $P/tsaserial
crypto_device = builtin
signer_cert = $P/${s#*:}.pem
certs = $P/ca.pem
signer_key = $P/${s#*:}.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
digests = sha256
accuracy = secs:1
ess_cert_id_alg = sha256
EOF
	done
	is "$(openssl x509 -in "$P/tsa.pem" -noout -ext extendedKeyUsage | tr -d ' ' | tr '\n' ' ')" \
		"X509v3ExtendedKeyUsage:critical TimeStamping " "the TSA certificate: extendedKeyUsage timeStamping, critical"

	# ---- the TSA on loopback ----
	/usr/bin/python3 "$TESTS_SRCDIR/lib/tsa-server.py" "$P/tsa.cnf" > "$T/tsa-port" 2>"$T/tsa-server.err" &
	TSA_PID=$!
	stop_tsa() { kill "$TSA_PID" 2>/dev/null; wait "$TSA_PID" 2>/dev/null; }
	_cleanup_hooks="$_cleanup_hooks stop_tsa"
	i=0
	while [ ! -s "$T/tsa-port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	URL="http://127.0.0.1:$(head -1 "$T/tsa-port")"
	# A port nothing listens on: bound, then let go.
	DOWN="http://127.0.0.1:$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
	TSA_SUBJECT="CN=Test TSA tsa,O=aivet tests"
	ISO='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'
}
