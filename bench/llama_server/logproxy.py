#!/usr/bin/python3
# Loopback logging proxy: logproxy.py LISTEN_PORT UPSTREAM_PORT LOGDIR
# Forwards every request to 127.0.0.1:UPSTREAM_PORT and writes NNN-req.json /
# NNN-resp.txt (status line + body) into LOGDIR. Responses are buffered whole.
# FAKE_CALLS='[{"name":..,"arguments":{..}}, ...]': the first N successful
# non-streamed chat completions get their message replaced by that tool call (the
# real server still processed the real prompt), so a random-weight model drives
# a multi-step run whose history (assistant tool_calls + tool messages) is sent
# back to the real server.
import http.server, sys, os, urllib.request, urllib.error, itertools, threading
listen, upstream, logdir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
os.makedirs(logdir, exist_ok=True)
counter = itertools.count(1); lock = threading.Lock()
import json
fake = json.loads(os.environ.get("FAKE_CALLS", "[]")); faked = [0]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def _do(self):
        with lock: n = next(counter)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
        open(f"{logdir}/{n:03d}-req.txt", "wb").write(f"{self.command} {self.path}\n".encode() + body)
        req = urllib.request.Request(f"http://127.0.0.1:{upstream}{self.path}", data=body if body else None, method=self.command)
        for k in ("Content-Type", "Accept", "Authorization"):
            if self.headers.get(k): req.add_header(k, self.headers[k])
        try:
            r = urllib.request.urlopen(req, timeout=600); status, data, ctype = r.status, r.read(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            status, data, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
        if status == 200 and self.path.endswith("/chat/completions") and faked[0] < len(fake) and data.lstrip().startswith(b"{"):
            with lock:
                call = fake[faked[0]]; faked[0] += 1
            j = json.loads(data)
            j["choices"][0]["message"] = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_fake_{faked[0]}", "type": "function",
                 "function": {"name": call["name"], "arguments": json.dumps(call.get("arguments", {}))}}]}
            j["choices"][0]["finish_reason"] = "tool_calls"
            data = json.dumps(j).encode()
            open(f"{logdir}/{n:03d}-faked", "w").write(call["name"])
        open(f"{logdir}/{n:03d}-resp.txt", "wb").write(f"HTTP {status} {ctype}\n".encode() + data)
        self.send_response(status); self.send_header("Content-Type", ctype or "application/json")
        self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
    do_GET = do_POST = _do
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", listen), H).serve_forever()
