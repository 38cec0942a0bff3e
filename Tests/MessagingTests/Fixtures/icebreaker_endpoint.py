#!/usr/bin/env python3
"""A stand-in for the LLM behind RV_ICEBREAKER_URL, for IcebreakerGeneratorTests.

POST /generate answers as the mode set by POST /mode {"mode": ...} says:
  ok     200 {"icebreakers": ["Generated: ...", x3]}
  stall  waits 7 s (past the generator's 5 s timeout; "seconds" in the mode's body sets
         another wait), then answers as ok
  fail   500
It wants `Authorization: Bearer test-key` (401 otherwise). GET /requests lists the bodies it
was sent. Prints "listening on PORT" once ready; runs until its standard input closes (the test
that started it ended, however it ended) or it is terminated.
"""
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

state = {"mode": "ok", "stall_seconds": 7, "requests": []}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/requests":
            with lock:
                self.reply(200, state["requests"])
        else:
            self.reply(404, {})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/mode":
            with lock:
                mode = json.loads(body)
                state["mode"] = mode["mode"]
                state["stall_seconds"] = mode.get("seconds", 7)
            self.reply(200, {})
            return
        if self.path != "/generate":
            self.reply(404, {})
            return
        if self.headers.get("Authorization") != "Bearer test-key":
            self.reply(401, {"error": "bad key"})
            return
        with lock:
            state["requests"].append(json.loads(body))
            mode = state["mode"]
            stall_seconds = state["stall_seconds"]
        if mode == "fail":
            self.reply(500, {"error": "model overloaded"})
            return
        if mode == "stall":
            time.sleep(stall_seconds)
        self.reply(200, {"icebreakers": ["Generated: first", "Generated: second", "Generated: third"]})


# A parent that ignores SIGTERM passes that on through exec; this server must still stop.
signal.signal(signal.SIGTERM, signal.SIG_DFL)


def exit_when_the_test_is_gone():
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


threading.Thread(target=exit_when_the_test_is_gone, daemon=True).start()
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on {server.server_address[1]}", flush=True)
server.serve_forever()
