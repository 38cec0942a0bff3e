#!/usr/bin/env python3
"""The per-call cost of tracing: the unary RPC (interop-server's UnaryCall) and the DB-backed
RPC (db-bench-server's GetAccount, one pooled statement) at 16 streams with h2load, under:

  off       no collector (RV_OTLP_ENDPOINT unset): contexts, propagation and log ids only
  10 %      spans exported over OTLP/gRPC to a collector, RV_TRACE_SAMPLE_RATIO=0.1
  100 %     the same, every trace recorded
  base      (with --base-bin DIR) the same executables built without tracing, e.g. from the
            commit before it (git archive COMMIT | tar -x -C DIR; swift build -c release there)

Each setting runs ROUNDS times in turn with the others (RV_BENCH_ROUNDS, default 3; each
RV_BENCH_SECONDS long, default 10); the median round is shown, with throughput relative to the
first setting. The collector is Tests/RuntimeTests/Fixtures/otlp_receiver.py (grpcio with
opentelemetry-proto), discarding what it receives, on the same machine: its CPU (the
`collector` column) is taken from the server's cores here, as a collector elsewhere would not.

  python3 Tests/Benchmarks/tracing_bench.py [--base-bin DIR]
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from db_bench import (BENCH_SECRET, PG_DB, PG_HOST, PG_PASSWORD, PG_PORT, ROOT, SECONDS, ensure_pgbench_tables,  # noqa: E402
                      h2load_run, stop)
from rpc_bench import cpu_seconds, free_port, percentile, simple_request, varint, wait_for_listening  # noqa: E402
import time  # noqa: E402

ROUNDS = int(os.environ.get("RV_BENCH_ROUNDS", "3"))


def start_collector():
    script = os.path.join(ROOT, "Tests/RuntimeTests/Fixtures/otlp_receiver.py")
    collector = subprocess.Popen([sys.executable, script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    line = collector.stdout.readline().decode()
    if not line.startswith("LISTENING "):
        sys.exit("the OTLP receiver did not start (pip install grpcio opentelemetry-proto)")
    return collector, int(line.split()[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/release"))
    parser.add_argument("--base-bin", help="interop-server and db-bench-server built without tracing")
    args = parser.parse_args()
    ensure_pgbench_tables()
    collector, collector_port = start_collector()
    endpoint = f"127.0.0.1:{collector_port}"
    settings = [("off", args.bin, {}),
                ("10 %", args.bin, {"RV_OTLP_ENDPOINT": endpoint, "RV_TRACE_SAMPLE_RATIO": "0.1"}),
                ("100 %", args.bin, {"RV_OTLP_ENDPOINT": endpoint, "RV_TRACE_SAMPLE_RATIO": "1"})]
    if args.base_bin:
        settings.insert(0, ("base", args.base_bin, {}))
    work = tempfile.mkdtemp(prefix="rv-tracebench-")
    unary_body = os.path.join(work, "unary")
    with open(unary_body, "wb") as f:
        message = simple_request(20, 20)
        f.write(struct.pack(">BI", 0, len(message)) + message)
    db_body = os.path.join(work, "get_account")
    with open(db_body, "wb") as f:
        message = varint(1 << 3) + varint(4242)  # GetAccountRequest.aid = 4242
        f.write(struct.pack(">BI", 0, len(message)) + message)

    def start(name, binaries, extra):
        port = free_port()
        env = dict(os.environ, RV_LOG_LEVEL="warning", **extra)
        if name == "interop-server":
            env.update(RV_INTEROP_PORT=str(port), RV_INTEROP_ADMIN_PORT=str(free_port()))
        else:
            env.update(RV_DBBENCH_PORT=str(port), RV_DBBENCH_ADMIN_PORT=str(free_port()), RV_DBBENCH_POOL_SIZE="16",
                       RV_PG_URL_DBBENCH=f"postgresql://rv_testsvc:{PG_PASSWORD}@{PG_HOST}:{PG_PORT}/{PG_DB}",
                       RV_SERVICE_CREDENTIALS=f"dbbench={BENCH_SECRET}")
        server = subprocess.Popen([os.path.join(binaries, name)], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        wait_for_listening(server)
        return server, port

    cases = [("unary ~20 B", "interop-server", "/grpc.testing.TestService/UnaryCall", unary_body),
             ("DB-backed GetAccount", "db-bench-server", "/rendezvous.bench.v1.Bench/GetAccount", db_body)]
    results, broken = {}, []
    try:
        for title, executable, path, body in cases:
            for turn in range(ROUNDS):
                for setting, binaries, extra in settings:
                    server, port = start(executable, binaries, extra)
                    try:
                        url = f"http://127.0.0.1:{port}{path}"
                        subprocess.run(["h2load", "-n", "20000", "-c", "4", "-m", "4", "-H", "content-type: application/grpc",
                                        "-H", "te: trailers", "-d", body, url], capture_output=True, timeout=120)
                        collector_before, wall_before = cpu_seconds(collector.pid), time.monotonic()
                        run = h2load_run(url, body, 16, 1, os.path.join(work, f"{executable}-{setting}-{turn}.log"), server)
                        # A server that died mid-run (or answered nothing) is a failure, not a slow row.
                        if server.poll() is not None or run[0] == 0:
                            broken.append(f"{executable} ({setting}, round {turn + 1}): "
                                          + (f"exited with status {server.returncode} during the run"
                                             if server.returncode is not None else "answered no call"))
                        collector_cpu = 100.0 * (cpu_seconds(collector.pid) - collector_before) / (time.monotonic() - wall_before)
                        results.setdefault((title, setting), []).append(run + (collector_cpu,))
                    finally:
                        stop(server)
    finally:
        collector.stdin.close()
        collector.wait(timeout=10)
    print(f"tracing's per-call cost, h2load -c 16 -m 1 (16 streams), {SECONDS} s, median of {ROUNDS} rounds, "
          f"{os.cpu_count()} cores")
    print(f"{'RPC':22} {'tracing':>8} {'RPC/s':>9} {'fail':>5} {'p50 ms':>7} {'p99 ms':>7} {'srv CPU':>8} {'µs CPU/call':>12} "
          f"{'collector':>10} {'vs first':>9}")
    for title, *_ in cases:
        first = None
        for setting, *_ in settings:
            runs = results[(title, setting)]
            rps, failed, latencies, cpu, *_, collector_cpu = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
            first = first or rps
            per_call = 1e4 * cpu / rps if rps else float("nan")
            print(f"{title:22} {setting:>8} {rps:9.0f} {sum(r[1] for r in runs):5d} {percentile(latencies, 0.5)/1000:7.3f} "
                  f"{percentile(latencies, 0.99)/1000:7.3f} {cpu:7.0f}% {per_call:12.1f} {collector_cpu:9.0f}% {rps / first:9.1%}  "
                  f"(rounds: {', '.join(f'{r[0]:.0f}' for r in runs)})")
    for line in broken:
        print(f"FAILED: {line}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
