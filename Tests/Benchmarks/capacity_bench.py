#!/usr/bin/env python3
"""How many concurrently active users one box holds at the service levels (capacity-bench).

The development Postgres (compose/local/db.sh: synchronous_commit on, an OK answer means the
write is on disk), then capacity-bench (release): it starts the release executables as
JourneyStack starts them (RV_BENCH_INSTANCES of each service, default 2, behind one nginx edge),
seeds RV_CAPACITY_PROFILES ÉLITE profiles (default 100,000) in discovery's projection once per
database, and runs the user model of Tests/Benchmarks/CapacityBench/UserModel.swift open-loop
through the edge with the gateway client: steps of RV_CAPACITY_STEP_SECONDS (default 30) from
RV_CAPACITY_START_USERS (default 100) active users, each step RV_CAPACITY_GROWTH (default 1.5)
times the last, until a step breaks a service level (p99 > 100 ms for a read or 250 ms for a
write, or 0.1 % of actions failed) or RV_CAPACITY_MAX_USERS (default 50,000) held. It prints
every step, then the most users held with that step's per-action p50/p99/p99.9 (HdrHistogram,
latency from each action's scheduled instant), CPU per active user-minute per service, the edge
and Postgres, and the five actions that cost the most server CPU. Client, services, nginx and
Postgres share the machine's cores. RV_BENCH_BUILD=debug runs the debug build instead.
"""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("RV_BENCH_BUILD", "release")
EXECUTABLES = ("identity", "discovery", "production", "messaging", "media", "capacity-bench")
SETTINGS = (("--start-users", "RV_CAPACITY_START_USERS", "100"), ("--growth", "RV_CAPACITY_GROWTH", "1.5"),
            ("--max-users", "RV_CAPACITY_MAX_USERS", "50000"), ("--step-seconds", "RV_CAPACITY_STEP_SECONDS", "30"),
            ("--instances", "RV_BENCH_INSTANCES", "2"), ("--seeded-profiles", "RV_CAPACITY_PROFILES", "100000"))


def main():
    for name in EXECUTABLES:
        if not os.path.exists(os.path.join(ROOT, ".build", BUILD, name)):
            sys.exit(f".build/{BUILD}/{name} not built: swift build -c {BUILD}")
    subprocess.run(["bash", os.path.join(ROOT, "compose/local/db.sh"), "start"], check=True)
    command = [os.path.join(ROOT, ".build", BUILD, "capacity-bench")]
    for flag, variable, default in SETTINGS:
        command += [flag, os.environ.get(variable, default)]
    print(f"capacity ({BUILD}): {os.cpu_count()} cores shared by the client, the services, nginx and Postgres", flush=True)
    return subprocess.run(command).returncode


if __name__ == "__main__":
    sys.exit(main())
