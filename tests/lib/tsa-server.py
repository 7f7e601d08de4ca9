#!/usr/bin/python3
# tsa-server.py: a real RFC 3161 Time-Stamping Authority on loopback for the
# tests. 'openssl ts -reply' answers each request (the config file given as
# the one argument holds a section per TSA certificate); the first path
# segment says how this server behaves, so one server plays every case:
#   /good        answers with the TSA of section tsa_good
#   /expired     answers with section tsa_expired (a TSA certificate long expired)
#   /nonce       answers a request whose nonce was changed (the reply's nonce differs)
#   /imprint     answers a request whose imprint was changed
#   /garbage     HTTP 200 with bytes that are no time-stamp response
#   /huge        HTTP 200 streaming zeros until the client stops reading (1 GB at most)
#   /redirect    HTTP 302 to /good
# Binds 127.0.0.1 on a free port and prints the port on its first line.
import http.server
import os
import subprocess
import sys
import tempfile

CONFIG = sys.argv[1]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def send(self, code, body, ctype="application/timestamp-reply", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def reply(self, query, section):
        with tempfile.TemporaryDirectory() as d:
            q, r = os.path.join(d, "q.tsq"), os.path.join(d, "r.tsr")
            with open(q, "wb") as f:
                f.write(query)
            p = subprocess.run(["openssl", "ts", "-reply", "-config", CONFIG, "-section", section,
                                "-queryfile", q, "-out", r], capture_output=True)
            if p.returncode != 0:
                return self.send(500, p.stderr, "text/plain")
            with open(r, "rb") as f:
                return self.send(200, f.read())

    def do_POST(self):
        query = bytearray(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        mode = self.path.strip("/").split("/")[0]
        if self.headers.get("Content-Type") != "application/timestamp-query":
            return self.send(415, b"want application/timestamp-query\n", "text/plain")
        if mode == "good":
            return self.reply(bytes(query), "tsa_good")
        if mode == "expired":
            return self.reply(bytes(query), "tsa_expired")
        if mode == "nonce":
            # The request ends nonce INTEGER, certReq BOOLEAN TRUE (01 01 ff):
            # the nonce's last byte is the fourth from the end.
            query[-4] ^= 1
            return self.reply(bytes(query), "tsa_good")
        if mode == "imprint":
            i = query.find(b"\x04\x20")   # the imprint: OCTET STRING of 32 bytes
            query[i + 2] ^= 1
            return self.reply(bytes(query), "tsa_good")
        if mode == "garbage":
            return self.send(200, b"<html>this is no time-stamp response</html>\n")
        if mode == "redirect":
            port = self.server.server_address[1]
            return self.send(302, b"", "text/plain",
                             [("Location", "http://127.0.0.1:%d/good" % port)])
        if mode == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/timestamp-reply")
            self.send_header("Content-Length", str(1 << 30))
            self.end_headers()
            chunk = bytes(65536)
            try:
                for _ in range((1 << 30) // len(chunk)):
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return None
        return self.send(404, b"no such mode\n", "text/plain")


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
