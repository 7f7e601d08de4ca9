#!/usr/bin/env python3
"""tests/lib/byte-listener.py LOG: stands where a colleague points an
endpoint, on an ephemeral loopback port. Prints "listening on
http://127.0.0.1:PORT" once ready and appends to LOG every byte any
connection sends (nothing is written to LOG until a byte arrives), then
answers each request 503 so that a client is not left waiting.

Connections are served one at a time, in the order they came. A request for
/.listener-flush is not logged: its answer, 200 "flushed", comes once every
connection made before it has been read and logged, which is how a test
knows that a client which has exited sent nothing (listener_flush)."""
import socketserver
import sys

LOG = sys.argv[1]
FLUSH = b"GET /.listener-flush "


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(5)
        got = b""
        logged = 0
        try:
            while b"\r\n\r\n" not in got:
                chunk = self.request.recv(65536)
                if not chunk:
                    break
                got += chunk
                if FLUSH.startswith(got[:len(FLUSH)]):
                    continue   # perhaps the flush request: logged once it is not
                with open(LOG, "ab") as f:
                    f.write(got[logged:])
                logged = len(got)
            if got.startswith(FLUSH):
                self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n"
                                     b"Connection: close\r\n\r\nflushed\n")
                return
            if logged < len(got):
                with open(LOG, "ab") as f:
                    f.write(got[logged:])
            self.request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                 b"Connection: close\r\n\r\n")
        except OSError:
            pass


socketserver.TCPServer.allow_reuse_address = True
with socketserver.TCPServer(("127.0.0.1", 0), Handler) as srv:
    print("listening on http://127.0.0.1:%d" % srv.server_address[1], flush=True)
    srv.serve_forever()
