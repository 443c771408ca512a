# make_certs DIR: a throw-away CA (DIR/ca.pem) and a server certificate for
# localhost and 127.0.0.1 signed by it (DIR/server.pem, DIR/server.key), valid
# two days; EC P-256, so it takes milliseconds. Sourced by the TLS tests.
make_certs() {
	local d=$1
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-keyout "$d/ca.key" -out "$d/ca.pem" -subj /CN=nvmond-test-ca 2> /dev/null &&
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
			-keyout "$d/server.key" -out "$d/server.csr" -subj /CN=localhost 2> /dev/null &&
		printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' > "$d/ext" &&
		openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
			-days 2 -extfile "$d/ext" -out "$d/server.pem" 2> /dev/null &&
		chmod 644 "$d/server.key"
}
