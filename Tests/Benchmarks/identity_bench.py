#!/usr/bin/env python3
"""Identity benchmark: the release `identity` executable on the local Postgres, driven over the
wire by the release `identity-bench` load generator (our own gRPC client: the refresh workload
spends each single-use refresh token once, which h2load's fixed request body cannot).

Workloads: anonymous sign-in, token refresh (one token chain per stream), get account (an
authenticated primary-key read), get profile (another member's, with the visibility rules and
distance), update profile (an upsert plus its ProfileUpdated event), each at 16 and 64 concurrent
streams over 4 connections; then email sign-in at 4 streams, which is dominated by scrypt and
meant to be slow. Last, how fast a new event consumer catches up on identity's latest events,
one transaction per event next to batches (RV_BENCH_CATCH_UP_EVENTS, default 20000).
RV_BENCH_SECONDS sets each run's length (default 10).
"""
import os
import signal
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))
from rpc_bench import free_port, wait_for_listening  # noqa: E402

PG_HOST = os.environ.get("RV_PG_HOST", "127.0.0.1")
PG_PORT = os.environ.get("RV_PG_PORT", "7432")
PG_DB = os.environ.get("RV_PG_DATABASE", "rendezvous")
PG_PASSWORD = os.environ.get("RV_PG_PASSWORD_IDENTITY", "rv_identity_local")
SECONDS = os.environ.get("RV_BENCH_SECONDS", "10")
CREDENTIAL_SECRET = "identity-bench-catch-up-secret-0123456789"
CATCH_UP_EVENTS = os.environ.get("RV_BENCH_CATCH_UP_EVENTS", "20000")


# Figures measured before the platform work (issue "Platform": outbox writers serialised by a
# row lock until commit), the same workloads at 64 streams, for the before/after table.
BEFORE = {"update profile": (790, 4.0), "anonymous sign-in": (1000, 3.0)}


def before_after(output):
    """The before/after lines for the workloads the platform work targets, from identity-bench's table."""
    lines = []
    for line in output.splitlines():
        for name, (before, target) in BEFORE.items():
            parts = line.split()
            if line.startswith(name) and len(parts) > len(name.split()) + 1 and parts[len(name.split())] == "64":
                after = float(parts[len(name.split()) + 1])
                verdict = "met" if after >= before * target else "NOT met"
                lines.append(f"{name:<20} {before:>8.0f}/s {after:>8.0f}/s {after / before:6.1f}x  target {target:.0f}x: {verdict}")
    return lines


def main():
    server_path = os.path.join(ROOT, ".build/release/identity")
    bench_path = os.path.join(ROOT, ".build/release/identity-bench")
    for path in (server_path, bench_path):
        if not os.path.exists(path):
            sys.exit(f"{path} not built: swift build -c release")
    port = free_port()
    env = dict(os.environ, RV_IDENTITY_PORT=str(port), RV_IDENTITY_ADMIN_PORT=str(free_port()),
               RV_PG_URL_IDENTITY=f"postgresql://rv_identity:{PG_PASSWORD}@{PG_HOST}:{PG_PORT}/{PG_DB}",
               RV_LOG_LEVEL="warning", RV_SERVICE_CREDENTIALS=f"bench={CREDENTIAL_SECRET}")
    server = subprocess.Popen([server_path], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        wait_for_listening(server)
        print("identity (release) vs identity-bench (release); measured on a shared machine", flush=True)
        result = subprocess.run([bench_path, "--port", str(port), "--seconds", SECONDS, "--server-pid", str(server.pid),
                                 "--catch-up-events", CATCH_UP_EVENTS, "--postgres-url", env["RV_PG_URL_IDENTITY"],
                                 "--service-credential", f"bench:{CREDENTIAL_SECRET}", *sys.argv[1:]], timeout=600, stdout=subprocess.PIPE, text=True)
        print(result.stdout, end="", flush=True)
        summary = before_after(result.stdout)
        if summary:
            print("\nbefore/after at 64 streams (before: outbox writers serialised until commit)")
            print("\n".join(summary))
        return result.returncode
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    sys.exit(main())
