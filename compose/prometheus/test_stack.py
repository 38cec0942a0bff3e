#!/usr/bin/env python3
"""End to end: `make run`'s stack (compose/local/run.sh, the edge included) on free ports with its
Prometheus, then

  - a few calls to every service, and PromQL through Prometheus' HTTP API returns each service's
    request rate and latency quantiles;
  - calls through the edge, and Prometheus has the edge's responses (rendezvous-edge's metrics);
  - Prometheus loaded every rule of compose/prometheus/rules and evaluates them without error;
  - every service's /metrics, scraped directly, exports each metric catalog.py lists for it, so
    no dashboard or rule names a metric no service exports;
  - every event consumer's lag reaches 0 once the services follow each other.

Needs the built executables (RV_BIN_DIR, default .build/debug) and the local Postgres
(compose/local/db.sh; this test provisions its own database, RV_PG_DATABASE or
rendezvous_prometheus_tests). Exit 0 when all pass.

  python3 compose/prometheus/test_stack.py
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
COMPOSE = os.path.dirname(HERE)
ROOT = os.path.dirname(COMPOSE)
sys.path.insert(0, HERE)
sys.path.insert(0, COMPOSE)
import catalog  # noqa: E402
import generate  # noqa: E402
from ports import free_port  # noqa: E402

failures = []


def fail(message):
    failures.append(message)
    print("FAIL " + message)


def ok(message):
    print("ok   " + message)


def wait_for(what, probe, timeout):
    """probe() until it returns something truthy; that value, or None after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value or time.monotonic() > deadline:
            if not value:
                fail(f"{what}: not within {timeout} s")
            return value
        time.sleep(0.5)


def query(prometheus, promql):
    url = f"http://{prometheus}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    with urllib.request.urlopen(url, timeout=5) as response:
        body = json.load(response)
    if body.get("status") != "success":
        raise RuntimeError(f"{promql}: {body}")
    return body["data"]["result"]


def per_service(prometheus, promql):
    """{service: value} of an instant query whose result is labelled by service."""
    try:
        return {r["metric"].get("service"): float(r["value"][1]) for r in query(prometheus, promql)}
    except OSError:
        return {}


def scrape(address):
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as response:
        return response.read().decode()


def exported_names(text):
    names = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            names.add(line.split()[2])
        elif line and not line.startswith("#"):
            names.add(generate.exported_name(re.match(r"[A-Za-z_:][A-Za-z0-9_:]*", line).group(0)))
    return names


def call(port, path, times):
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        method = channel.unary_unary(path, request_serializer=lambda b: b, response_deserializer=lambda b: b)
        for _ in range(times):
            method(b"", timeout=5)


def main():
    started = time.monotonic()
    database = os.environ.get("RV_PG_DATABASE", "rendezvous_prometheus_tests")
    env = dict(os.environ, RV_PG_DATABASE=database,
               RV_BIN_DIR=os.environ.get("RV_BIN_DIR", os.path.join(ROOT, ".build", "debug")))
    subprocess.run(["bash", os.path.join(COMPOSE, "local", "db.sh"), "start"], env=env, check=True)
    ports = {service: (free_port(), free_port()) for service in catalog.SERVICES}
    for service, (port, admin) in ports.items():
        env[f"RV_{service.upper()}_PORT"] = str(port)
        env[f"RV_{service.upper()}_ADMIN_PORT"] = str(admin)
        env.pop(f"RV_{service.upper()}_ADDRESS", None)
    env["RV_INTEROP_PORT"] = str(free_port())
    prometheus = f"127.0.0.1:{free_port()}"
    env["RV_PROMETHEUS_PORT"] = prometheus.split(":")[1]
    workdir = tempfile.mkdtemp(prefix="rv-prometheus-test-")
    env["RV_PROMETHEUS_DIR"] = workdir
    edge = f"127.0.0.1:{free_port()}"
    edge_metrics = f"127.0.0.1:{free_port()}"
    env.update(RV_EDGE_DIR=os.path.join(workdir, "edge"), RV_EDGE_PORT=edge.split(":")[1], RV_EDGE_HTTP1_PORT="off",
               RV_EDGE_METRICS_PORT=edge_metrics.split(":")[1])
    # Push on (an APNs provider key of our own; nothing is pushed), as in production: messaging
    # exports its push metrics only when it can push.
    key = os.path.join(workdir, "apns.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    env.update(RV_APNS_KEY_FILE=key, RV_APNS_KEY_ID="TESTKEY123", RV_APNS_TEAM_ID="TESTTEAM12",
               RV_APNS_TOPICS="elite:com.example.elite", RV_APNS_HOST=f"127.0.0.1:{free_port()}",
               RV_APNS_SANDBOX_HOST=f"127.0.0.1:{free_port()}")
    log_path = os.path.join(workdir, "run.log")
    log = open(log_path, "w")
    stack = subprocess.Popen(["bash", os.path.join(COMPOSE, "local", "run.sh")], env=env, cwd=ROOT,
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        def running():
            if stack.poll() is not None:
                raise RuntimeError(f"run.sh exited with {stack.returncode}")
            with open(log_path) as f:
                return "rendezvous: running" in f.read()
        if not wait_for("run.sh reports every listener up", running, 120):
            return
        ok(f"run.sh started the stack and Prometheus on {prometheus} ({time.monotonic() - started:.1f} s)")

        # A few calls at a time (health checks on every service, identity's public keys) until
        # Prometheus has scraped a rise of each service's counter: a counter first seen after the
        # calls would show no rate.
        services = set(catalog.SERVICES)

        def rates_of_all():
            for port, _ in ports.values():
                call(port, "/grpc.health.v1.Health/Check", 3)
            call(ports["identity"][0], "/rendezvous.identity.v1.Identity/GetSigningKeys", 1)
            rates = per_service(prometheus, "sum by (service) (rate(rpc_server_requests_total[1m]))")
            return rates if set(rates) == services and all(v > 0 for v in rates.values()) else None
        rates = wait_for("a request rate per service", rates_of_all, 60)
        if rates:
            ok("request rates per service (calls/s): " + ", ".join(f"{s} {v:.2f}" for s, v in sorted(rates.items())))
        promql = ('histogram_quantile(0.99, sum by (service, le) '
                  '(rate(rpc_server_duration_seconds_bucket{method="/grpc.health.v1.Health/Check"}[1m])))')
        quantiles = per_service(prometheus, promql)
        if set(quantiles) == services and all(0 < v <= 0.1 for v in quantiles.values()):
            ok("health checks' p99 per service (s): " + ", ".join(f"{s} {v:.4f}" for s, v in sorted(quantiles.items())))
        else:
            fail(f"p99 of health checks per service: {quantiles}")

        # The rules as Prometheus loaded them, each evaluated once without error.
        def evaluated():
            with urllib.request.urlopen(f"http://{prometheus}/api/v1/rules", timeout=5) as response:
                groups = json.load(response)["data"]["groups"]
            rules = [r for g in groups for r in g["rules"]]
            return groups if rules and all(r.get("lastEvaluation", "").startswith("20") for r in rules) else None
        groups = wait_for("every rule evaluated", evaluated, 60)
        if groups:
            with open(generate.RULES) as f:
                expected = sum(len(g["rules"]) for g in generate.yaml.safe_load(f)["groups"])
            rules = [r for g in groups for r in g["rules"]]
            broken = [f"{r['name']}: {r.get('lastError')}" for r in rules if r.get("health") != "ok"]
            if len(rules) != expected or broken:
                fail(f"Prometheus loaded {len(rules)} of {expected} rules; failing: {broken}")
            else:
                ok(f"Prometheus evaluates all {expected} rules without error")
        # A rule's first evaluation can come before the rate has two samples: it records
        # nothing until the next one (evaluation_interval, 15 s).
        def recorded_all():
            recorded = per_service(prometheus, "service:rpc_server_requests:rate5m")
            return recorded if set(recorded) == services else None
        if wait_for("the recording rule service:rpc_server_requests:rate5m for every service", recorded_all, 60):
            ok("the recording rule service:rpc_server_requests:rate5m has every service")

        # Calls through the edge (TLS, the CA run.sh made): Prometheus scrapes rendezvous-edge's counts.
        with open(os.path.join(workdir, "edge", "tls", "ca.pem"), "rb") as f:
            credentials = grpc.ssl_channel_credentials(f.read())

        def edge_rate():
            with grpc.secure_channel(edge, credentials, options=[("grpc.ssl_target_name_override", "localhost")]) as channel:
                keys = channel.unary_unary("/rendezvous.identity.v1.Identity/GetSigningKeys",
                                           request_serializer=lambda b: b, response_deserializer=lambda b: b)
                for _ in range(3):
                    keys(b"", timeout=5)
            rates = per_service(prometheus, 'sum by (service) (rate(edge_responses_total{route="identity",code="OK"}[1m]))')
            return rates if rates.get(catalog.EDGE, 0) > 0 else None
        rates = wait_for("the edge's responses in Prometheus", edge_rate, 60)
        if rates:
            ok(f"the edge's identity calls through Prometheus: {rates[catalog.EDGE]:.2f} calls/s answered OK")

        # Every metric the rules and dashboards name, exported by the services catalog.py says.
        exported = {service: exported_names(scrape(f"127.0.0.1:{admin}")) for service, (_, admin) in ports.items()}
        exported[catalog.EDGE] = exported_names(scrape(edge_metrics))
        everywhere = set().union(*exported.values())
        for name, where in sorted(generate.used_metrics().items()):
            if name not in everywhere:
                fail(f"{name} is exported by no service, but {where[0]} uses it")
        for metric in catalog.METRICS:
            missing = [s for s in metric.services if metric.name not in exported[s]]
            if missing:
                fail(f"{metric.name} ({metric.source}) is not exported by {', '.join(missing)}")
        ok(f"every metric of the rules and dashboards is exported ({len(generate.used_metrics())} metrics)")

        def caught_up():
            try:
                lags = query(prometheus, "event_consumer_lag_seconds")
            except OSError:
                return None
            return lags if lags and all(float(r["value"][1]) == 0 for r in lags) else None
        lags = wait_for("every event consumer caught up (lag 0)", caught_up, 60)
        if lags:
            ok(f"{len(lags)} event consumers at lag 0: " + ", ".join(
                sorted(f"{r['metric']['service']}←{r['metric']['consumer']}" for r in lags)))
    except Exception as error:  # noqa: BLE001 - a failure like any other: run.sh's output follows
        fail(f"{type(error).__name__}: {error}")
    finally:
        # run.sh and everything it started share a process group; once every one of them has
        # exited (run.sh stops the rest when one exits), there is nothing left to signal.
        try:
            os.killpg(stack.pid, signal.SIGTERM)
            stack.wait(timeout=30)
        except ProcessLookupError:
            stack.wait()
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)
            stack.wait()
        log.close()
        if failures:
            for name, path in (("run.sh's output", log_path),
                               ("Prometheus' log", os.path.join(workdir, "prometheus.log")),
                               ("nginx's error log", os.path.join(workdir, "edge", "run", "error.log"))):
                if os.path.exists(path):
                    with open(path, errors="replace") as f:
                        print(f"---- {name} ----\n" + f.read()[-6000:])
        subprocess.run(["rm", "-rf", workdir])
    print(f"test_stack: {len(failures)} failure(s) in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # noqa: BLE001 - reported as a failure, with what happened
        fail(f"{type(error).__name__}: {error}")
    sys.exit(1 if failures else 0)
