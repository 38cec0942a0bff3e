#!/usr/bin/env python3
"""Mixed load of the five products' journeys through the edge, two instances per service.

The development Postgres (compose/local/db.sh, synchronous_commit on: an OK answer means the
write is on disk), then journeys-bench (release): it starts the release executables as
JourneyStack starts them for the journey tests (Shared/TestSupport/JourneyStack.swift: identity,
discovery, production, messaging and media, RV_BENCH_INSTANCES of each, default 2, behind one
nginx edge, messaging pushing to an in-process fake APNs) and runs all five journeys
(Tests/Journeys: ÉLITE, FirstDate, Swivo, The Unseen, Momento) at once, RV_BENCH_USERS virtual
users each (default 2), every user looping its journey through GatewayClient for --duration
seconds (default 180). It prints journeys/s and calls/s, p50/p99 per RPC method (every call's
latency, nearest-rank percentiles), every non-OK answer by method, status and reason (the
refusals the journeys ask for listed apart from errors, of which none are expected) and each
process's peak RSS (VmHWM from /proc/<pid>/status). Client, services, nginx and Postgres share
the machine's cores. RV_BENCH_BUILD=debug runs the debug build instead.

usage: journeys_bench.py [--duration SECONDS]
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("RV_BENCH_BUILD", "release")
EXECUTABLES = ("identity", "discovery", "production", "messaging", "media", "journeys-bench")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=int(os.environ.get("RV_BENCH_SECONDS", "180")),
                        help="seconds of load (default 180)")
    arguments = parser.parse_args()
    for name in EXECUTABLES:
        if not os.path.exists(os.path.join(ROOT, ".build", BUILD, name)):
            sys.exit(f".build/{BUILD}/{name} not built: swift build -c {BUILD}")
    # The benchmark's database acknowledges a commit once it is on disk (db.sh's cluster always
    # does; only make test's own sessions relax it).
    subprocess.run(["bash", os.path.join(ROOT, "compose/local/db.sh"), "start"], check=True)
    command = [os.path.join(ROOT, ".build", BUILD, "journeys-bench"), "--duration", str(arguments.duration),
               "--users", os.environ.get("RV_BENCH_USERS", "2"), "--instances", os.environ.get("RV_BENCH_INSTANCES", "2")]
    print(f"journeys ({BUILD}): {os.cpu_count()} cores shared by the client, the services, nginx and Postgres", flush=True)
    result = subprocess.run(command, timeout=arguments.duration + 600)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
