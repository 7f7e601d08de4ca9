#!/usr/bin/env python3
"""noisy-vendor.py [DELAY_MAX_MS [PREFILL_MS [PRIMED_GAIN_MS [GAIN_FIRST]]]]: an OpenAI-style chat endpoint
whose time to the first token is noisy, for prefix-timing's drift check
(timing-load.sh; aivet-sim's --ttft-noise-ms serves the other timing tests).

This vendor delays each streamed
answer by one of a fixed list of delays (0 to DELAY_MAX_MS, default 60, each
once in a scrambled order), plus PREFILL_MS (default 0) for prompts with a
long opening, and gives each kind of request the probe sends its own run
through the list: tenant B's "primed" requests (an opening tenant A sent)
and its "control" requests (a fresh opening) get the same delays in the
same order. The two groups the probe compares are then alike whatever the
machine's load (no prefix cache, no hit), and as noisy as the list: the
verdict depends on the noise only through the power to see a hit. With
PRIMED_GAIN_MS (default 0) the primed requests come that much sooner than
their controls; with GAIN_FIRST only the first
GAIN_FIRST primed requests get it, a saving that drifts away during the run
(timing-load.sh). Prints
"listening on http://127.0.0.1:PORT" once ready.
"""
import http.server
import json
import re
import sys
import threading
import time

DELAY_MAX = int(sys.argv[1]) if len(sys.argv) > 1 else 60
PREFILL_S = (int(sys.argv[2]) if len(sys.argv) > 2 else 0) / 1000.0
GAIN_S = (int(sys.argv[3]) if len(sys.argv) > 3 else 0) / 1000.0
GAIN_FIRST = int(sys.argv[4]) if len(sys.argv) > 4 else 0
# 0..DELAY_MAX, each once: 37 steps around a cycle of 61 visit every slot.
DELAYS_MS = [((i * 37) % 61) * DELAY_MAX / 60.0 for i in range(61)]
MARK = "Shared instructions follow.\n"
lock = threading.Lock()
a_openings = set()
counters = {}


def kind_of(tenant, text):
    if not text.startswith(MARK):
        return "short" if tenant == "b" else "plain"
    opening = text[len(MARK):len(MARK) + 400]
    with lock:
        if tenant == "a":
            if opening in a_openings:
                return "own"
            a_openings.add(opening)
            return "prime"
        return "primed" if opening in a_openings else "control"


def delay_for(kind):
    with lock:
        i = counters.get(kind, 0)
        counters[kind] = i + 1
    gain = GAIN_S if kind == "primed" and (GAIN_FIRST == 0 or i < GAIN_FIRST) else 0
    return DELAYS_MS[i % len(DELAYS_MS)] / 1000.0 - gain


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        auth = self.headers.get("Authorization", "")
        tenant = "a" if auth.endswith("key-a") else "b" if auth.endswith("key-b") else None
        if tenant is None or not self.path.endswith("/chat/completions"):
            self.send_error(401 if tenant is None else 404)
            return
        text = body["messages"][-1]["content"]
        if isinstance(text, list):
            text = "".join(p.get("text", "") for p in text)
        answer = " ".join(re.findall(r"AIVET[A-Za-z0-9]+", text)[:3])
        usage = {"prompt_tokens": len(text.split()) + 20, "completion_tokens": 3}
        usage["total_tokens"] = usage["prompt_tokens"] + 3
        if not body.get("stream"):
            out = json.dumps({"id": "n", "object": "chat.completion", "model": body.get("model"),
                              "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": answer}}],
                              "usage": usage}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        kind = kind_of(tenant, text)
        time.sleep(max(0.0, delay_for(kind) + (PREFILL_S if kind not in ("short", "plain") else 0)))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        chunk = {"id": "n", "object": "chat.completion.chunk", "model": body.get("model")}
        for delta, finish in (({"role": "assistant", "content": answer}, None), ({}, "stop")):
            chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        chunk["choices"] = []
        chunk["usage"] = usage
        self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
server.serve_forever()
