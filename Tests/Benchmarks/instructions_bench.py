#!/usr/bin/env python3
"""Instructions per call under callgrind: the per-call cost of the runtime as a number that a busy
machine does not move (h2load's calls/s and CPU time do, by ±20% here).

Runs the release interop-server (UnaryCall) or db-bench-server (GetAccount, one pooled
statement) under `valgrind --tool=callgrind`, warms it up, zeroes the counters, drives N calls
with h2load, dumps, and prints the server's instructions per call (every thread: event loops,
Postgres's loop, the exporter). The dump stays for callgrind_annotate
(`--inclusive=yes --tree=calling` shows each function's callees with their counts).

  python3 Tests/Benchmarks/instructions_bench.py unary|db [--calls N] [--streams C M]
      [--level info] [--trace off|10|100] [--bare] [--bin .build/release] [--out DIR]

Release binaries carry DWARF 5, which Debian 12's valgrind (3.19) cannot read: they are run
from a copy without debug info (symbols stay). That valgrind also writes into the signal mask a
program hands to sigsuspend, and libdispatch's (the async main thread parks there) is
read-only: a two-line LD_PRELOAD shim, compiled here with cc, passes it a copy.
"""
import argparse
import glob
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import db_bench  # noqa: E402
from rpc_bench import ROOT, free_port, simple_request, varint  # noqa: E402
from tracing_bench import start_collector  # noqa: E402

SIGSUSPEND_SHIM = r"""
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
int sigsuspend(const sigset_t *mask) { sigset_t copy = *mask; return syscall(SYS_rt_sigsuspend, &copy, 8); }
"""


def prepare(work, binaries, executable):
    """A copy of the executable without debug info, and the sigsuspend shim."""
    for tool in ("valgrind", "h2load", "cc", "strip"):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found (apt-get install valgrind nghttp2-client gcc binutils)")
    source = os.path.join(binaries, executable)
    if not os.path.exists(source):
        sys.exit(f"{source} not built: swift build -c release --product {executable}")
    stripped = os.path.join(work, executable)
    subprocess.run(["strip", "--strip-debug", "-o", stripped, source], check=True)
    with open(os.path.join(work, "shim.c"), "w") as f:
        f.write(SIGSUSPEND_SHIM)
    shim = os.path.join(work, "sigsuspend.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", shim, os.path.join(work, "shim.c")], check=True)
    return stripped, shim


def h2load(url, body, calls, clients, streams):
    result = subprocess.run(["h2load", "-n", str(calls), "-c", str(clients), "-m", str(streams), "-t", "1",
                             "-H", "content-type: application/grpc", "-H", "te: trailers", "-d", body, url],
                            capture_output=True, text=True, timeout=1200)
    for line in result.stdout.splitlines():
        if line.strip().startswith("requests:"):
            parts = line.replace(",", "").split()
            return int(parts[parts.index("succeeded") - 1])
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("case", choices=["unary", "db"])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--streams", type=int, nargs=2, default=[1, 1], metavar=("CLIENTS", "PER_CLIENT"))
    parser.add_argument("--level", default="info", help="RV_LOG_LEVEL (info: a line per call)")
    parser.add_argument("--trace", default="off", help="off (no collector), or the sampled percentage")
    parser.add_argument("--bare", action="store_true", help="interop-server --bare: the RPCServer alone")
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/release"))
    parser.add_argument("--out", help="folder for the callgrind dump (default: a new temporary one)")
    args = parser.parse_args()
    work = args.out or tempfile.mkdtemp(prefix="rv-callgrind-")
    os.makedirs(work, exist_ok=True)

    port = free_port()
    env = dict(os.environ, RV_LOG_LEVEL=args.level, SWIFT_BACKTRACE="enable=no")
    body = os.path.join(work, "body")
    if args.case == "unary":
        executable, path, message = "interop-server", "/grpc.testing.TestService/UnaryCall", simple_request(20, 20)
        env.update(RV_INTEROP_PORT=str(port), RV_INTEROP_ADMIN_PORT=str(free_port()))
    else:
        executable, path, message = "db-bench-server", "/rendezvous.bench.v1.Bench/GetAccount", varint(1 << 3) + varint(4242)
        db_bench.ensure_pgbench_tables()
        env.update(RV_DBBENCH_PORT=str(port), RV_DBBENCH_ADMIN_PORT=str(free_port()), RV_DBBENCH_POOL_SIZE="16",
                   RV_PG_URL_DBBENCH=f"postgresql://rv_testsvc:{db_bench.PG_PASSWORD}@{db_bench.PG_HOST}:"
                                     f"{db_bench.PG_PORT}/{db_bench.PG_DB}",
                   RV_SERVICE_CREDENTIALS=f"dbbench={db_bench.BENCH_SECRET}")
    with open(body, "wb") as f:
        f.write(struct.pack(">BI", 0, len(message)) + message)
    stripped, shim = prepare(work, args.bin, executable)
    env["LD_PRELOAD"] = shim
    collector = None
    if args.trace != "off":
        collector, collector_port = start_collector()
        env.update(RV_OTLP_ENDPOINT=f"127.0.0.1:{collector_port}", RV_TRACE_SAMPLE_RATIO=str(float(args.trace) / 100))
    dump = os.path.join(work, "callgrind.out")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={dump}", stripped]
    if args.bare:
        command += ["--bare", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        while True:
            line = server.stdout.readline().decode()
            if not line:
                sys.exit(f"{executable} did not start under valgrind")
            if "listening" in line:
                break
        url = f"http://127.0.0.1:{port}{path}"
        clients, streams = args.streams
        # Warm-up over several connections, so every event loop holds its pooled Postgres
        # connection before the count starts (opening one, SCRAM included, costs more than
        # ten calls).
        h2load(url, body, 1000, 4, 1)
        h2load(url, body, max(200, 20 * clients * streams), clients, streams)
        subprocess.run(["callgrind_control", "-z", str(server.pid)], capture_output=True, check=True)
        succeeded = h2load(url, body, args.calls, clients, streams)
        subprocess.run(["callgrind_control", "-d", str(server.pid)], capture_output=True, check=True)
        time.sleep(0.5)
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
        if collector:
            collector.stdin.close()
            collector.wait(timeout=10)
    dumps = sorted(glob.glob(dump + ".*"), key=os.path.getmtime)
    if not dumps or succeeded != args.calls:
        sys.exit(f"{succeeded} of {args.calls} calls succeeded; dumps: {dumps}")
    total = 0
    opened_connection = False
    with open(dumps[-1]) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
            elif " PQconnectPoll" in line:
                opened_connection = True
    print(f"{args.case}{' (bare)' if args.bare else ''} -c {clients} -m {streams}, log level {args.level}, "
          f"tracing {args.trace}: {total / args.calls:,.0f} instructions per call over {args.calls} calls "
          f"(dump: {dumps[-1]})")
    if opened_connection:
        # A pool that grew during the count: one SCRAM handshake alone is tens of thousands of
        # instructions per call over 2,000 calls, so this count is not comparable.
        print("warning: a Postgres connection was opened during the count; run again")
    return 0


if __name__ == "__main__":
    sys.exit(main())
