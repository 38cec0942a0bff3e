#!/usr/bin/env python3
"""Faults under load across every service, then the audit of every acknowledged write (chaos).

A Postgres cluster of its own (the harness stops it with `-m immediate`: never the one `make run`
or the tests use): RV_DATA_DIR, default <repo>/.data/postgres-chaos, on RV_CHAOS_PG_PORT (default
7437), database rendezvous_chaos; synchronous_commit on, as db.sh always sets it, so an OK answer
means the write is on disk. Then the chaos executable (Tests/Benchmarks/Chaos): two instances of
every service behind one nginx edge (JourneyStack), media's blobs in an S3 stand-in and
messaging's icebreakers from a stand-in endpoint, pushes to a fake APNs; ÉLITE pairs chatting
(realtime streams and pushes), new matches, Swivo races, Momento guests racing the photo limit
and FirstDate ledger entries for --duration seconds while the printed fault schedule runs: kill
-9 of a random instance every 15 s (restarted on its port), a SIGSTOP for 10 s, messaging's
connections terminated mid-transaction, two edge reloads, S3 and the icebreaker answering after
10 s, APNs refusing with 503 for a minute, Postgres stopped in immediate mode and started again.
It prints the faults with each one's recovery, the calls and statuses, and the audit table; it
exits 1 when an acknowledged write was lost or a write duplicated.

usage: chaos.py [--duration SECONDS]   (default RV_CHAOS_SECONDS or 600; at least 150)
RV_CHAOS_BUILD=debug runs the debug build (make test's shortened run); RV_CHAOS_SEED repeats a schedule.
"""
import argparse
import hashlib
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("RV_CHAOS_BUILD", "release")
EXECUTABLES = ("identity", "discovery", "production", "messaging", "media", "chaos")


def data_dir():
    """The cluster's folder: beside the development one, or under /var/lib when db.sh's OS user
    cannot reach the repository (as db.sh decides for its own)."""
    if os.environ.get("RV_DATA_DIR"):
        return os.environ["RV_DATA_DIR"]
    local = os.path.join(ROOT, ".data", "postgres-chaos")
    if os.geteuid() != 0:
        return local
    user = os.environ.get("RV_PG_OS_USER", "rendezvous")
    reachable = subprocess.run(["runuser", "-u", user, "--", "test", "-x", ROOT], capture_output=True).returncode == 0
    if reachable:
        return local
    return f"/var/lib/rendezvous/{hashlib.sha256(ROOT.encode()).hexdigest()[:12]}/postgres-chaos"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=int(os.environ.get("RV_CHAOS_SECONDS", "600")),
                        help="seconds of load and faults (default 600, at least 150)")
    arguments = parser.parse_args()
    for name in EXECUTABLES:
        if not os.path.exists(os.path.join(ROOT, ".build", BUILD, name)):
            sys.exit(f".build/{BUILD}/{name} not built: swift build -c {BUILD}")
    environment = dict(os.environ, RV_DATA_DIR=data_dir(), RV_PG_PORT=os.environ.get("RV_CHAOS_PG_PORT", "7437"),
                       RV_PG_DATABASE="rendezvous_chaos")
    # The tests' relaxed commits (make test's PGOPTIONS) would lose acknowledged writes to the
    # immediate stop: this run's sessions keep the cluster's synchronous_commit.
    environment.pop("PGOPTIONS", None)
    subprocess.run(["bash", os.path.join(ROOT, "compose/local/db.sh"), "start"], check=True, env=environment)
    command = [os.path.join(ROOT, ".build", BUILD, "chaos"), "--duration", str(arguments.duration)]
    if os.environ.get("RV_CHAOS_SEED"):
        command += ["--seed", os.environ["RV_CHAOS_SEED"]]
    print(f"chaos ({BUILD}): {os.cpu_count()} cores shared by the client, the services, nginx and Postgres", flush=True)
    try:
        return subprocess.run(command, env=environment, timeout=arguments.duration + 900).returncode
    finally:
        # The cluster is the run's own: stopped, so it holds no port or memory afterwards.
        subprocess.run(["bash", os.path.join(ROOT, "compose/local/db.sh"), "stop"], env=environment)


if __name__ == "__main__":
    sys.exit(main())
