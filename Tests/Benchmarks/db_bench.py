#!/usr/bin/env python3
"""DB-backed RPC benchmark: GetAccount (one primary-key read through the pool) over the wire
with h2load at 16 and 64 concurrent streams, next to `pgbench -S -M prepared` at 16 and 64
clients on the same cluster and the same table (testsvc.pgbench_accounts, role rv_testsvc).

h2load sends one fixed request body, so every RPC reads the same row; pgbench -S reads random
rows. At scale 10 the whole table sits in shared_buffers, so both measure cached reads.

Then the outbox's cost: UpsertProfile (a profile-shaped upsert of a random row) with and without
a ProfileUpdated event appended in its transaction, at 16 and 64 streams in the same run, and the
event delivery lag while events are written at 64 streams: a WatchEvents subscriber (grpcio, the
bench server's outbox) records, per event, receive time minus occurred_at (the writing
transaction's start, so the lag includes the transaction itself).
"""
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))
from rpc_bench import cpu_seconds, free_port, latencies_us, parse_summary, percentile, rss_kib, varint, wait_for_listening  # noqa: E402

PG_HOST = os.environ.get("RV_PG_HOST", "127.0.0.1")
PG_PORT = os.environ.get("RV_PG_PORT", "7432")
PG_DB = os.environ.get("RV_PG_DATABASE", "rendezvous")
PG_PASSWORD = os.environ.get("RV_PG_PASSWORD_TESTSVC", "rv_testsvc_local")
PG_ENV = dict(os.environ, PGPASSWORD=PG_PASSWORD)
PG_ARGS = ["-h", PG_HOST, "-p", PG_PORT, "-U", "rv_testsvc"]
PG_BIN = "/usr/lib/postgresql/15/bin"
SCALE = 10
SECONDS = int(os.environ.get("RV_BENCH_SECONDS", "10"))


def psql(sql):
    return subprocess.run([f"{PG_BIN}/psql", *PG_ARGS, "-d", PG_DB, "-tAc", sql], env=PG_ENV,
                          capture_output=True, text=True)


def ensure_pgbench_tables():
    result = psql("SELECT count(*) FROM testsvc.pgbench_accounts")
    if result.returncode == 0 and int(result.stdout.strip() or 0) == SCALE * 100000:
        return
    print(f"initialising pgbench tables (scale {SCALE}) in schema testsvc ...", flush=True)
    subprocess.run([f"{PG_BIN}/pgbench", *PG_ARGS, "-i", "-q", "-s", str(SCALE), PG_DB], env=PG_ENV,
                   check=True, capture_output=True)


def pgbench(clients):
    result = subprocess.run([f"{PG_BIN}/pgbench", *PG_ARGS, "-S", "-M", "prepared", "-n", "-c", str(clients),
                             "-j", "2", "-T", str(SECONDS), "-r", PG_DB], env=PG_ENV, capture_output=True, text=True)
    tps, latency = 0.0, 0.0
    for line in result.stdout.splitlines():
        if line.startswith("tps ="):
            tps = float(line.split()[2])
        if line.startswith("latency average"):
            latency = float(line.split()[3])
    if result.returncode != 0:
        print(result.stdout, result.stderr, file=sys.stderr)
    return tps, latency


BENCH_SECRET = "db-bench-lag-subscriber-secret-0123456789"


def upsert_body(work, with_event):
    path = os.path.join(work, f"upsert_{int(with_event)}")
    message = (varint(1 << 3) + varint(1) if with_event else b"") + varint(2 << 3 | 2) + varint(10) + b"bench bio!"
    with open(path, "wb") as f:
        f.write(struct.pack(">BI", 0, len(message)) + message)
    return path


class LagSubscriber(threading.Thread):
    """Follows the bench outbox from its current end and records each event's lag in ms."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.lags = []
        self.error = None
        self.ready = threading.Event()
        self.stream = None

    def run(self):
        try:
            import grpc
            gen = tempfile.mkdtemp(prefix="rv-dbbench-protos-")
            subprocess.run(["bash", os.path.join(ROOT, "Tests/InteropTests/Fixtures/gen_protos.sh"), gen],
                           check=True, capture_output=True)
            sys.path.insert(0, gen)
            grpc.__path__.append(os.path.join(gen, "grpc"))
            from rendezvous.events.v1 import events_pb2
            last = psql("SELECT coalesce(max(cursor), 0) FROM testsvc.bench_outbox").stdout.strip() or "0"
            channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
            watch = channel.unary_stream("/rendezvous.events.v1.EventStream/WatchEvents",
                                         request_serializer=lambda m: m.SerializeToString(),
                                         response_deserializer=events_pb2.Event.FromString)
            self.stream = watch(events_pb2.WatchEventsRequest(after_cursor=int(last)),
                                metadata=[("authorization", f"Service dbbench:{BENCH_SECRET}")])
            self.ready.set()
            for event in self.stream:
                received = time.time()
                occurred = event.occurred_at.seconds + event.occurred_at.nanos / 1e9
                self.lags.append((received - occurred) * 1000)
        except Exception as error:  # noqa: BLE001 (reported with the results)
            if self.stream is None or not self.stream.cancelled():
                self.error = error
            self.ready.set()


def h2load_run(url, body_file, clients, per_client, log_file, server):
    headers = ["-H", "content-type: application/grpc", "-H", "te: trailers"]
    cpu_before, wall_before = cpu_seconds(server.pid), time.monotonic()
    result = subprocess.run(["h2load", "-D", str(SECONDS), "-c", str(clients), "-m", str(per_client), "-t", "1",
                             *headers, "-d", body_file, "--log-file", log_file, url],
                            capture_output=True, text=True, timeout=SECONDS + 120)
    cpu = 100.0 * (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - wall_before)
    rps, ok, failed = parse_summary(result.stdout)
    return rps, failed, latencies_us(log_file), cpu


def outbox_cost(port, work, server):
    """UpsertProfile with and without its event, then the delivery lag; returns failed requests."""
    url = f"http://127.0.0.1:{port}/rendezvous.bench.v1.Bench/UpsertProfile"
    bodies = {False: upsert_body(work, False), True: upsert_body(work, True)}
    subprocess.run(["h2load", "-n", "5000", "-c", "4", "-m", "4", "-H", "content-type: application/grpc",
                    "-H", "te: trailers", "-d", bodies[True], url], capture_output=True, timeout=120)
    print(f"\nUpsertProfile with and without its outbox event, {SECONDS} s each, same run")
    print(f"{'streams':>7} {'no event/s':>11} {'p99 ms':>7} {'with event/s':>13} {'p99 ms':>7} {'with/without':>13}")
    failures = 0
    for streams, clients, per_client in [(16, 16, 1), (64, 16, 4)]:
        results = {}
        for with_event in (False, True):
            rps, failed, lat, _ = h2load_run(url, bodies[with_event], clients, per_client,
                                             os.path.join(work, f"upsert-{streams}-{int(with_event)}.log"), server)
            failures += failed
            results[with_event] = (rps, percentile(lat, 0.99))
        ratio = results[True][0] / results[False][0] if results[False][0] else float("nan")
        print(f"{streams:7d} {results[False][0]:11.0f} {results[False][1]/1000:7.2f} {results[True][0]:13.0f} "
              f"{results[True][1]/1000:7.2f} {ratio:12.0%}")
    subscriber = LagSubscriber(port)
    subscriber.start()
    subscriber.ready.wait(60)
    time.sleep(0.5)
    rps, failed, _, _ = h2load_run(url, bodies[True], 16, 4, os.path.join(work, "lag.log"), server)
    failures += failed
    time.sleep(1.0)
    if subscriber.stream is not None:
        subscriber.stream.cancel()
    subscriber.join(5)
    lags = sorted(subscriber.lags)
    if subscriber.error or not lags:
        print(f"delivery lag: no events received ({subscriber.error})")
        return failures + 1
    print(f"delivery lag (occurred_at → WatchEvents subscriber) while writing {rps:.0f} events/s at 64 streams: "
          f"{len(lags)} events, p50 {percentile(lags, 0.5):.1f} ms, p99 {percentile(lags, 0.99):.1f} ms, "
          f"max {lags[-1]:.1f} ms")
    return failures


def main():
    server_path = os.path.join(ROOT, ".build/release/db-bench-server")
    if not os.path.exists(server_path):
        sys.exit(f"{server_path} not built: swift build -c release --product db-bench-server")
    ensure_pgbench_tables()
    work = tempfile.mkdtemp(prefix="rv-dbbench-")
    body_file = os.path.join(work, "get_account")
    message = varint(1 << 3) + varint(4242)  # GetAccountRequest.aid = 4242
    with open(body_file, "wb") as f:
        f.write(struct.pack(">BI", 0, len(message)) + message)

    port = free_port()
    env = dict(os.environ, RV_DBBENCH_PORT=str(port), RV_DBBENCH_ADMIN_PORT=str(free_port()),
               RV_PG_URL_DBBENCH=f"postgresql://rv_testsvc:{PG_PASSWORD}@{PG_HOST}:{PG_PORT}/{PG_DB}",
               RV_DBBENCH_POOL_SIZE=os.environ.get("RV_DBBENCH_POOL_SIZE", "16"), RV_LOG_LEVEL="warning",
               RV_SERVICE_CREDENTIALS=f"dbbench={BENCH_SECRET}")
    server = subprocess.Popen([server_path], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    rows = []
    try:
        wait_for_listening(server)
        url = f"http://127.0.0.1:{port}/rendezvous.bench.v1.Bench/GetAccount"
        headers = ["-H", "content-type: application/grpc", "-H", "te: trailers"]
        subprocess.run(["h2load", "-n", "20000", "-c", "4", "-m", "4", *headers, "-d", body_file, url],
                       capture_output=True, timeout=120)  # warm-up: pool connections, prepared statements
        for streams, clients, per_client in [(16, 16, 1), (64, 16, 4)]:
            log_file = os.path.join(work, f"h2load-{streams}.log")
            cpu_before, wall_before = cpu_seconds(server.pid), time.monotonic()
            result = subprocess.run(["h2load", "-D", str(SECONDS), "-c", str(clients), "-m", str(per_client), "-t", "1",
                                     *headers, "-d", body_file, "--log-file", log_file, url],
                                    capture_output=True, text=True, timeout=SECONDS + 120)
            cpu = 100.0 * (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - wall_before)
            rps, ok, failed = parse_summary(result.stdout)
            lat = latencies_us(log_file)
            tps, pg_latency = pgbench(streams)
            rows.append((streams, rps, ok, failed, percentile(lat, 0.5), percentile(lat, 0.99), cpu, tps, pg_latency))
        print(f"db-bench-server (release, pool {env['RV_DBBENCH_POOL_SIZE']}) vs pgbench -S -M prepared, "
              f"{SECONDS} s each, scale {SCALE}, {os.cpu_count()} cores")
        print(f"{'streams':>7} {'RPC/s':>9} {'fail':>5} {'p50 ms':>7} {'p99 ms':>7} {'srv CPU':>8} {'pgbench tps':>12} {'pg lat ms':>9} {'RPC/pgbench':>12}")
        for streams, rps, ok, failed, p50, p99, cpu, tps, pg_latency in rows:
            ratio = rps / tps if tps else float("nan")
            print(f"{streams:7d} {rps:9.0f} {failed:5d} {p50/1000:7.3f} {p99/1000:7.3f} {cpu:7.0f}% {tps:12.0f} {pg_latency:9.3f} {ratio:11.0%}")
        print(f"server RSS {rss_kib(server.pid)/1024:.1f} MiB, peak {rss_kib(server.pid, 'VmHWM')/1024:.1f} MiB")
        failures = sum(r[3] for r in rows) + outbox_cost(port, work, server)
        print(f"{len(rows) if not failures else 0} passed, {1 if failures else 0} failed")
        return 1 if failures else 0
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
