#!/usr/bin/env python3
"""tests/lib/byte-listener.py LOG: stands where a colleague points an
endpoint, on an ephemeral loopback port. Prints "listening on
http://127.0.0.1:PORT" once ready and appends to LOG every byte any
connection sends (nothing is written to LOG until a byte arrives), then
answers each request 503 so that a client is not left waiting."""
import socketserver
import sys

LOG = sys.argv[1]


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(5)
        got = b""
        try:
            while b"\r\n\r\n" not in got:
                chunk = self.request.recv(65536)
                if not chunk:
                    break
                got += chunk
                with open(LOG, "ab") as f:
                    f.write(chunk)
            self.request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                 b"Connection: close\r\n\r\n")
        except OSError:
            pass


socketserver.TCPServer.allow_reuse_address = True
with socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler) as srv:
    print("listening on http://127.0.0.1:%d" % srv.server_address[1], flush=True)
    srv.serve_forever()
