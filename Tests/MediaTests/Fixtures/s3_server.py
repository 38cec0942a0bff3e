#!/usr/bin/env python3
"""A real S3-compatible server for the S3 backend's tests: moto in server mode, with request
signing enforced (moto checks Signature V4 against an IAM user's secret only when auth is on).

Prints "listening on PORT ACCESS_KEY_ID SECRET_ACCESS_KEY" once ready; runs until its standard
input closes (the suite that started it ended, however it ended) or it is terminated.
Besides S3 it answers, outside any bucket name:
  GET /_test/fail?count=N[&match=TEXT]   the next N S3 requests (whose "/path?query" contains
      TEXT, when given) get 503 SlowDown (retries, outages)
  GET /_test/stall?count=N&ms=M[&match=TEXT]   the next N S3 requests (those containing TEXT,
      when given) are answered M milliseconds late (timeouts)
  GET /_test/create?bucket=B   makes bucket B (a client without S3's signing at hand)
  GET /_test/log     the S3 requests so far, one "METHOD /path?query" per line
  GET /_test/keys?bucket=B   the bucket's object keys and sizes, one "key size" per line
  GET /_test/multipart?bucket=B   how many multipart uploads are unfinished
"""
import os

os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "0"  # before moto reads its settings

import signal
import sys
import threading
import time

from moto.core import DEFAULT_ACCOUNT_ID
from moto.iam.models import iam_backends
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from moto.s3.models import s3_backends
from werkzeug.serving import make_server

state = {"fail": 0, "match": "", "stall": 0, "stall_ms": 0, "stall_match": "", "log": []}
lock = threading.Lock()


def make_user():
    iam = iam_backends[DEFAULT_ACCOUNT_ID]["aws"]
    iam.create_user(region_name="us-east-1", user_name="media", path="/")
    iam.put_user_policy("media", "everything",
                        '{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}')
    key = iam.create_access_key(user_name="media")
    return key.access_key_id, key.secret_access_key


def bucket(name):
    return s3_backends[DEFAULT_ACCOUNT_ID]["aws"].buckets.get(name)


def text(start_response, status, body):
    data = body.encode()
    start_response(status, [("Content-Type", "text/plain"), ("Content-Length", str(len(data)))])
    return [data]


def application(moto):
    def app(environ, start_response):
        path = environ.get("PATH_INFO", "")
        query = environ.get("QUERY_STRING", "")
        if path.startswith("/_test/"):
            arguments = dict(part.split("=", 1) for part in query.split("&") if "=" in part)
            if path == "/_test/fail":
                with lock:
                    state["fail"] = int(arguments.get("count", "0"))
                    state["match"] = arguments.get("match", "")
                return text(start_response, "200 OK", "")
            if path == "/_test/stall":
                with lock:
                    state["stall"] = int(arguments.get("count", "0"))
                    state["stall_ms"] = int(arguments.get("ms", "0"))
                    state["stall_match"] = arguments.get("match", "")
                return text(start_response, "200 OK", "")
            if path == "/_test/create":
                s3_backends[DEFAULT_ACCOUNT_ID]["aws"].create_bucket(arguments.get("bucket", ""), "eu-west-1")
                return text(start_response, "200 OK", "")
            if path == "/_test/log":
                with lock:
                    return text(start_response, "200 OK", "".join(line + "\n" for line in state["log"]))
            found = bucket(arguments.get("bucket", ""))
            if found is None:
                return text(start_response, "404 Not Found", "no such bucket")
            if path == "/_test/keys":
                lines = [f"{key.name} {key.size}\n" for key in found.keys.values() if key.name]
                return text(start_response, "200 OK", "".join(sorted(lines)))
            if path == "/_test/multipart":
                return text(start_response, "200 OK", str(len(found.multiparts)))
            return text(start_response, "404 Not Found", "")
        with lock:
            target = path + (f"?{query}" if query else "")
            state["log"].append(f"{environ['REQUEST_METHOD']} {target}")
            failing = state["fail"] > 0 and state["match"] in target
            if failing:
                state["fail"] -= 1
            stall = state["stall_ms"] if state["stall"] > 0 and state["stall_match"] in target else 0
            if stall:
                state["stall"] -= 1
        if stall:
            time.sleep(stall / 1000)
        if failing:
            return text(start_response, "503 Slow Down",
                        "<?xml version='1.0'?><Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>")
        return moto(environ, start_response)
    return app


# A parent that ignores SIGTERM passes that on through exec; this server must still stop.
signal.signal(signal.SIGTERM, signal.SIG_DFL)


def exit_when_the_test_is_gone():
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


threading.Thread(target=exit_when_the_test_is_gone, daemon=True).start()
access_key_id, secret_access_key = make_user()
server = make_server("127.0.0.1", 0, application(DomainDispatcherApplication(create_backend_app)), threaded=True)
print(f"listening on {server.server_port} {access_key_id} {secret_access_key}", flush=True)
server.serve_forever()
