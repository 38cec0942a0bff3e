#!/usr/bin/env python3
"""Messaging benchmark: the release `messaging` and `identity` executables on the local Postgres.

1,000 anonymous Swivo accounts, paired into 500 conversations (seeded with SQL, as matches
would open them), each with its realtime stream open. Then for RV_BENCH_SECONDS, 32 and then 64
concurrent senders (RV_BENCH_SENDERS) send text messages (each member to their match):
messages/s accepted, and for every message the time from the send call to its arrival on the
recipient's stream (p50/p99). The client is identity-bench (RealtimeFanOutBench: our own gRPC
client, so the figure is the server's rather than a slow client's; an earlier Python grpc.aio
client holding the 1,000 streams took most of a core). It shares the 2 cores with the server
and Postgres.
"""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))
from rpc_bench import free_port, wait_for_listening  # noqa: E402

PG = dict(host=os.environ.get("RV_PG_HOST", "127.0.0.1"), port=os.environ.get("RV_PG_PORT", "7432"),
          db=os.environ.get("RV_PG_DATABASE", "rendezvous"))
SECONDS = int(os.environ.get("RV_BENCH_SECONDS", "10"))
MEMBERS = 1_000
SENDERS = os.environ.get("RV_BENCH_SENDERS", "32,64")


def url(role):
    password = os.environ.get(f"RV_PG_PASSWORD_{role.upper()}", f"rv_{role}_local")
    return f"postgresql://rv_{role}:{password}@{PG['host']}:{PG['port']}/{PG['db']}"


def start(name, env):
    process = subprocess.Popen([os.path.join(ROOT, ".build/release", name)], env=dict(os.environ, **env),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wait_for_listening(process)
    return process


def main():
    for name in ("identity", "messaging", "identity-bench"):
        if not os.path.exists(os.path.join(ROOT, ".build/release", name)):
            sys.exit(f".build/release/{name} not built: swift build -c release")
    identity_port, messaging_port = free_port(), free_port()
    identity = start("identity", {"RV_IDENTITY_PORT": str(identity_port), "RV_IDENTITY_ADMIN_PORT": str(free_port()),
                                  "RV_PG_URL_IDENTITY": url("identity"), "RV_LOG_LEVEL": "warning"})
    messaging = start("messaging", {"RV_MESSAGING_PORT": str(messaging_port), "RV_MESSAGING_ADMIN_PORT": str(free_port()),
                                    "RV_PG_URL_MESSAGING": url("messaging"), "RV_LOG_LEVEL": "warning",
                                    "RV_IDENTITY_ADDRESS": f"127.0.0.1:{identity_port}",
                                    "RV_DISCOVERY_ADDRESS": f"127.0.0.1:{free_port()}"})
    try:
        print("messaging (release) and identity (release) driven by identity-bench (release, our gRPC client); "
              "the 2 cores are shared with Postgres and the client", flush=True)
        result = subprocess.run([os.path.join(ROOT, ".build/release/identity-bench"), "--port", str(identity_port),
                                 "--only", "none", "--warmup", "0", "--seconds", str(SECONDS),
                                 "--messaging-port", str(messaging_port), "--messaging-pid", str(messaging.pid),
                                 "--admin-url", url("admin"), "--messaging-members", str(MEMBERS),
                                 "--messaging-senders", SENDERS], timeout=900, stdout=subprocess.PIPE, text=True)
        print(result.stdout, end="", flush=True)
        return result.returncode
    finally:
        for process in (messaging, identity):
            process.terminate()
            process.wait(timeout=15)


if __name__ == "__main__":
    sys.exit(main())
