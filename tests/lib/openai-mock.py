#!/usr/bin/env python3
"""tests/lib/openai-mock.py LOG: a small OpenAI chat-completions server on an
ephemeral loopback port. Under /v1 it stands in for an o-series model: a
request that carries max_tokens is refused 400 with OpenAI's documented
unsupported_parameter error. Under /openai/deployments/ it is an Azure
OpenAI deployment of api-version 2024-10-21, which refuses the arguments
that version does not define (stream_options, max_completion_tokens) as
Azure does. Other requests are answered, repeating the prompt's AIVET codes,
with usage (streamed when asked, with a usage chunk only when
stream_options.include_usage is set). Prints "listening on
http://127.0.0.1:PORT" once ready; appends one line per request to LOG: the
sorted top-level fields of its body. With MOCK_LEAK_TO=KEY set, the first
answer to that key once another key has sent codes carries exactly one of
those codes besides its own: a single foreign canary. With MOCK_LEAK_OWN=KEY,
every answer to that key after its first request that sent codes carries one
of the first's codes besides its own: a single canary of another request of
the tenant in each."""
import http.server
import json
import re
import os
import sys
import threading

LOG = sys.argv[1]
LEAK_TO = os.environ.get("MOCK_LEAK_TO")
LEAK_OWN = os.environ.get("MOCK_LEAK_OWN")
SEEN = {}          # key -> the codes its requests carried
LEAKED = []
LOCK = threading.Lock()
REFUSAL = {"error": {
    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
               "Use 'max_completion_tokens' instead.",
    "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, ctype, data):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with open(LOG, "a") as f:
            f.write(" ".join(sorted(body)) + "\n")
        path = self.path.split("?")[0]
        if not path.endswith("/chat/completions"):
            return self.send(404, "application/json", b'{"error":{"message":"no route"}}')
        if path.startswith("/openai/deployments/"):
            body["model"] = path.split("/")[3]
            extra = [k for k in ("stream_options", "max_completion_tokens") if k in body]
            if extra:
                return self.send(400, "application/json", json.dumps({"error": {
                    "message": "Unrecognized request argument supplied: " + extra[0],
                    "type": "invalid_request_error", "param": None, "code": None}}).encode())
        elif "max_tokens" in body:
            return self.send(400, "application/json", json.dumps(REFUSAL).encode())
        prompt = body["messages"][0]["content"]
        codes = re.findall(r"AIVET[A-Za-z0-9]{19}", prompt)
        answer = " ".join(codes)
        key = self.headers.get("Authorization", "")
        with LOCK:
            earlier = [c for c in SEEN.get(key, []) if c not in codes]
            SEEN.setdefault(key, []).extend(codes)
            other = [c for k, v in SEEN.items() if k != key for c in v]
            if LEAK_TO and key == "Bearer " + LEAK_TO and other and not LEAKED:
                LEAKED.append(other[0])
                answer += " " + other[0]
            if LEAK_OWN and key == "Bearer " + LEAK_OWN and earlier:
                answer += " " + earlier[0]
        usage = {"prompt_tokens": len(prompt.split()) + 8, "completion_tokens": 40,
                 "total_tokens": len(prompt.split()) + 48,
                 "completion_tokens_details": {"reasoning_tokens": 30}}
        if not body.get("stream"):
            return self.send(200, "application/json", json.dumps({
                "id": "chatcmpl-m", "object": "chat.completion", "created": 1, "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                             "finish_reason": "stop"}],
                "usage": usage}).encode())
        chunks = [{"choices": [{"index": 0, "delta": {"content": answer}, "finish_reason": None}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
        if body.get("stream_options", {}).get("include_usage"):
            chunks.append({"choices": [], "usage": usage})
        data = "".join("data: " + json.dumps(dict(c, id="chatcmpl-m", object="chat.completion.chunk",
                                                  created=1, model=body["model"])) + "\n\n"
                       for c in chunks) + "data: [DONE]\n\n"
        self.send(200, "text/event-stream", data.encode())


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
server.serve_forever()
