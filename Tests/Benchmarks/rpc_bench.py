#!/usr/bin/env python3
"""RPC benchmark: h2load against interop-server's UnaryCall and 1 MiB transfers.

Starts the release interop-server on a free port, drives it with h2load (Debian's
nghttp2-client) at the configurations the foundation issue names, and prints a table of
requests/s, latency percentiles (from h2load's per-request log), the server's CPU use
(from /proc/<pid>/stat) and its resident memory idle and under load. Then the runtime's
per-call overhead: the same unary call against `interop-server --bare` (no interceptors) and the
full runtime, with and without a log line per call.
"""
import argparse
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "compose"))
from ports import free_port  # noqa: E402,F401 (the other benchmarks import it from here)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_bytes(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def frame(message):
    return struct.pack(">BI", 0, len(message)) + message


def simple_request(response_size, body_size):
    payload = field_bytes(2, bytes(body_size))  # Payload.body
    return field_varint(2, response_size) + field_bytes(3, payload)  # response_size, payload


def streaming_input_request(body_size):
    return field_bytes(1, field_bytes(2, bytes(body_size)))  # payload.body


def wait_for_listening(server):
    """Reads the server's stdout until its `... listening on` line."""
    seen = []
    for _ in range(50):
        line = server.stdout.readline().decode()
        seen.append(line)
        if "listening" in line:
            return
        if not line:
            break
    sys.exit("server did not start: " + "".join(seen))


def cpu_seconds(pid):
    return sum(cpu_times(pid))


def cpu_times(pid):
    """(user, kernel) CPU seconds of process `pid` so far: utime and stime."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def rss_kib(pid, key="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def percentile(sorted_values, fraction):
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, int(round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


def run_h2load(port, path, body_file, clients, streams, requests, log_file):
    command = [
        "h2load", "-n", str(requests), "-c", str(clients), "-m", str(streams), "-t", "1",
        "-H", "content-type: application/grpc", "-H", "te: trailers",
        "-d", body_file, "--log-file", log_file,
        f"http://127.0.0.1:{port}{path}",
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def parse_summary(output):
    rps, succeeded, failed = 0.0, 0, 0
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("finished in"):
            rps = float(line.split(",")[1].split()[0])
        if line.startswith("requests:"):
            parts = line.replace(",", "").split()
            succeeded = int(parts[parts.index("succeeded") - 1])
            failed = int(parts[parts.index("failed") - 1])
    return rps, succeeded, failed


def latencies_us(log_file):
    values = []
    with open(log_file) as f:
        for line in f:
            parts = line.split("\t")
            if len(parts) >= 3 and parts[1] == "200":
                values.append(int(parts[2]))
    values.sort()
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", default=os.path.join(ROOT, ".build/release/interop-server"))
    parser.add_argument("--scale", type=float, default=1.0, help="multiply request counts")
    args = parser.parse_args()
    if not shutil.which("h2load"):
        sys.exit("h2load not found: apt-get install nghttp2-client (make deps does)")
    if not os.path.exists(args.server):
        sys.exit(f"{args.server} not built: swift build -c release --product interop-server")

    work = tempfile.mkdtemp(prefix="rv-bench-")
    bodies = {
        "unary20": frame(simple_request(20, 20)),
        "download1m": frame(simple_request(1 << 20, 0)),
        "upload1m": frame(streaming_input_request(1 << 20)),
    }
    for name, data in bodies.items():
        with open(os.path.join(work, name), "wb") as f:
            f.write(data)

    port = free_port()
    # Per-call info logs would go to a pipe nobody reads: warnings only.
    env = dict(os.environ, RV_LOG_LEVEL="warning", RV_INTEROP_ADMIN_PORT=str(free_port()))
    server = subprocess.Popen([args.server, "--port", str(port)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        wait_for_listening(server)
        time.sleep(0.3)
        idle_rss = rss_kib(server.pid)
        cases = [
            ("unary ~20 B, -c 1 -m 1", "/grpc.testing.TestService/UnaryCall", "unary20", 1, 1, 30000),
            ("unary ~20 B, -c 16 -m 16", "/grpc.testing.TestService/UnaryCall", "unary20", 16, 16, 400000),
            ("unary ~20 B, -c 64 -m 32", "/grpc.testing.TestService/UnaryCall", "unary20", 64, 32, 400000),
            ("1 MiB response, -c 4 -m 4", "/grpc.testing.TestService/UnaryCall", "download1m", 4, 4, 3000),
            ("1 MiB upload, -c 4 -m 4", "/grpc.testing.TestService/StreamingInputCall", "upload1m", 4, 4, 3000),
        ]
        # Warm-up so the first case is not measuring page faults and lazy binding.
        run_h2load(port, cases[1][1], os.path.join(work, "unary20"), 4, 4, 20000, os.path.join(work, "warm.log"))
        rows = []
        for title, path, body, clients, streams, count in cases:
            count = max(1000, int(count * args.scale))
            log_file = os.path.join(work, body + ".log")
            cpu_before = cpu_seconds(server.pid)
            wall_before = time.monotonic()
            result = run_h2load(port, path, os.path.join(work, body), clients, streams, count, log_file)
            wall = time.monotonic() - wall_before
            cpu = cpu_seconds(server.pid) - cpu_before
            rps, ok, failed = parse_summary(result.stdout)
            lat = latencies_us(log_file)
            rows.append((title, rps, ok, failed, percentile(lat, 0.5), percentile(lat, 0.99),
                         percentile(lat, 0.999), 100.0 * cpu / wall, rss_kib(server.pid)))
            if result.returncode != 0 or failed:
                print(result.stdout, result.stderr, file=sys.stderr)
        peak = rss_kib(server.pid, "VmHWM")
        print(f"interop-server (release) on 127.0.0.1:{port}, h2load -t 1, {os.cpu_count()} cores")
        print(f"{'case':28} {'req/s':>10} {'ok':>8} {'fail':>5} {'p50 ms':>8} {'p99 ms':>8} {'p99.9 ms':>9} {'srv CPU':>8} {'RSS MiB':>8}")
        for title, rps, ok, failed, p50, p99, p999, cpu, rss in rows:
            print(f"{title:28} {rps:10.0f} {ok:8d} {failed:5d} {p50/1000:8.3f} {p99/1000:8.3f} {p999/1000:9.3f} {cpu:7.0f}% {rss/1024:8.1f}")
        print(f"server RSS idle {idle_rss/1024:.1f} MiB, peak {peak/1024:.1f} MiB")
        transfer = [r for r in rows if "MiB" in r[0]]
        for title, rps, *_ in transfer:
            print(f"{title}: {rps:.0f} req/s = {rps:.0f} MiB/s of payload")
        failures = sum(r[3] for r in rows)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    try:
        failures += per_call_overhead(args.server, work, args.scale)
        print(f"{len(rows) - (1 if failures else 0)} passed, {1 if failures else 0} failed")
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def per_call_overhead(server_path, work, scale):
    """Unary UnaryCall throughput of the same TestService four ways, one after the other in one
    run: `interop-server --bare` (an RPCServer without the runtime), the full runtime (logging,
    metrics, health, request ids) with per-call lines below the log level (the default for a
    busy service), and the full runtime writing every call's info line: to /dev/null, and to a pipe
    that `cat` drains, as a container runtime reads a service's standard error."""
    body = os.path.join(work, "unary20")
    servers = [
        ("bare RPCServer", ["--bare"], "warning"),
        ("runtime, calls not logged", [], "warning"),
        ("runtime, every call logged", [], "info"),
        ("  the same, logged to a pipe", [], "info"),
    ]
    configurations = [(16, 16), (64, 32)]
    results = {}
    for title, flags, level in servers:
        port = free_port()
        env = dict(os.environ, RV_LOG_LEVEL=level, RV_INTEROP_ADMIN_PORT=str(free_port()))
        to_pipe = "pipe" in title
        server = subprocess.Popen([server_path, "--port", str(port), *flags], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE if to_pipe else subprocess.DEVNULL)
        reader = None
        if to_pipe:
            reader = subprocess.Popen(["cat"], stdin=server.stderr, stdout=subprocess.DEVNULL)
            server.stderr.close()
        try:
            wait_for_listening(server)
            run_h2load(port, "/grpc.testing.TestService/UnaryCall", body, 4, 4, 20000, os.path.join(work, "warm.log"))
            for clients, streams in configurations:
                count = max(1000, int(300000 * scale))
                cpu_before, wall_before = cpu_seconds(server.pid), time.monotonic()
                result = run_h2load(port, "/grpc.testing.TestService/UnaryCall", body, clients, streams, count,
                                    os.path.join(work, "overhead.log"))
                wall = time.monotonic() - wall_before
                cpu = cpu_seconds(server.pid) - cpu_before
                rps, ok, failed = parse_summary(result.stdout)
                results[(title, clients)] = (rps, ok, failed, 100.0 * cpu / wall, 1e6 * cpu / max(ok, 1))
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
            if reader:
                reader.wait(timeout=10)
    print("\nper-call overhead of the runtime: unary ~20 B, the same TestService, h2load -t 1, one run")
    print(f"{'server':28} {'clients':>7} {'req/s':>9} {'fail':>5} {'srv CPU':>8} {'CPU us/call':>12} {'vs bare':>8}")
    failures = 0
    for title, _, _ in servers:
        for clients, streams in configurations:
            rps, ok, failed, cpu, per_call = results[(title, clients)]
            bare = results[("bare RPCServer", clients)][0]
            failures += failed
            print(f"{title:28} {f'{clients}x{streams}':>7} {rps:9.0f} {failed:5d} {cpu:7.0f}% {per_call:12.1f} {rps / bare:8.0%}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
