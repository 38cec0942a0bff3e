#!/usr/bin/env python3
"""A stand-in for Instagram's Graph API behind RV_INSTAGRAM_GRAPH_URL, for InstagramImportTests.

GET /me?fields=id,username&access_token=T answers the account registered for token T;
GET /me/following and /me/followers answer its lists two ids a page, with paging.next (carrying
the token, as Graph's does) while more remain. An unknown token gets Graph's answer to a bad
token: 400 {"error": {"type": "OAuthException", "code": 190}}. POST /accounts {token: {"id",
"username", "following": [...], "followers": [...]}} registers accounts; POST /mode {"mode": ...}
sets how every Graph request is answered:
  ok     as above
  fail   500
  stall  waits 3 s, then answers as ok
GET /requests counts the Graph requests so far. Prints "listening on PORT" once ready; runs until
its standard input closes (the test that started it ended, however it ended) or it is terminated.
"""
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

state = {"mode": "ok", "accounts": {}, "requests": 0}
lock = threading.Lock()
PAGE = 2


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

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        with lock:
            if self.path == "/mode":
                state["mode"] = body["mode"]
            elif self.path == "/accounts":
                state["accounts"].update(body)
            else:
                self.reply(404, {})
                return
        self.reply(200, {})

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/requests":
            with lock:
                self.reply(200, {"requests": state["requests"]})
            return
        query = parse_qs(url.query)
        with lock:
            state["requests"] += 1
            mode = state["mode"]
            account = state["accounts"].get(query.get("access_token", [""])[0])
        if mode == "fail":
            self.reply(500, {"error": {"message": "An unexpected error has occurred.", "type": "OAuthException", "code": 2}})
            return
        if mode == "stall":
            time.sleep(3)
        if account is None:
            self.reply(400, {"error": {"message": "Invalid OAuth access token.", "type": "OAuthException", "code": 190}})
            return
        if url.path == "/me":
            self.reply(200, {"id": account["id"], "username": account["username"]})
            return
        if url.path in ("/me/following", "/me/followers"):
            ids = account.get(url.path.rsplit("/", 1)[1], [])
            after = int(query.get("after", ["0"])[0])
            page = {"data": [{"id": i} for i in ids[after:after + PAGE]], "paging": {}}
            if after + PAGE < len(ids):
                next_query = urlencode({"fields": "id", "after": after + PAGE, "access_token": query["access_token"][0]})
                page["paging"]["next"] = f"http://{self.headers['Host']}{url.path}?{next_query}"
            self.reply(200, page)
            return
        self.reply(404, {"error": {"message": "Unknown path", "type": "GraphMethodException", "code": 100}})


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
