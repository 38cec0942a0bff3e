#!/usr/bin/env python3
"""Writes the Prometheus rules and the Grafana dashboards from catalog.py (the one list):

  rules/rendezvous.rules.yml      recording rules (each objective's bad fraction over every
                                  window the burn-rate alerts use), the burn-rate alerts, the
                                  other alerts
  dashboards/<service>.json       one Grafana dashboard per service, and edge.json for the edge
  dashboards/system.json          every service side by side, objectives and alerts

  python3 compose/prometheus/generate.py            write them
  python3 compose/prometheus/generate.py --check    exit 1 when a committed file differs, a rule or
                                                    panel names a metric catalog.py does not list, or
                                                    README.md's alerts table is not --readme's
  python3 compose/prometheus/generate.py --readme   print the README's alerts table
"""
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import catalog  # noqa: E402
from catalog import (ALERTS, BURN_ALERTS, EDGE_OBJECTIVES, OBJECTIVES, SERVER_ERRORS, SERVICES, STREAMS,  # noqa: E402
                     UPLOADS, WINDOWS)

RULES = os.path.join(HERE, "rules", "rendezvous.rules.yml")
DASHBOARDS = os.path.join(HERE, "dashboards")
README = os.path.join(os.path.dirname(os.path.dirname(HERE)), "README.md")


def ratio_rule(objective, window):
    return f"{objective.by}:{objective.sli}:ratio_rate{window}"


def threshold(burn, budget):
    return f"{burn * budget:.6g}"


BURN_RUNBOOK = {
    "availability": "Open the service's dashboard: which methods fail with which code, since when; then the service's "
                    "log for those calls (level error, their request_id). A deploy at that time: roll it back.",
    "read latency": "Open the service's dashboard: which reads are slow; then db_pool_waiters (calls queueing for "
                    "Postgres), Postgres' slow statements (pg_stat_activity) and the box's CPU.",
    "write latency": "Open the service's dashboard: which writes are slow; then db_pool_waiters (calls queueing for "
                     "Postgres), Postgres' slow statements (pg_stat_activity) and the box's CPU.",
    "edge availability": "Open the edge's dashboard: which route fails with which code. UNAVAILABLE while the service's "
                         "own availability is fine: the edge cannot reach it (InstanceDown, the edge's error log's "
                         "'connect() failed' or 'no live upstreams', the Service's endpoints); else follow that "
                         "service's AvailabilityBudgetBurn.",
}


def burn_alerts():
    for objective in OBJECTIVES + EDGE_OBJECTIVES:
        for spec in BURN_ALERTS:
            parts = []
            for long, short, burn in spec["conditions"]:
                limit = threshold(burn, objective.budget)
                parts.append(f"({ratio_rule(objective, long)} > {limit} and {ratio_rule(objective, short)} > {limit})")
            speed = "fast" if spec["severity"] == "page" else "slowly"
            yield {
                "alert": catalog.burn_alert_name(objective, spec["suffix"]),
                "expr": "\nor\n".join(parts),
                "for": spec["for"],
                "labels": {"severity": spec["severity"], "objective": objective.name.replace(" ", "_")},
                "annotations": {
                    "summary": f"{objective.subject} burns its {objective.name} budget {speed} "
                               f"(objective: {objective.description}, over 30 days)",
                    "runbook": BURN_RUNBOOK[objective.name],
                },
            }


def rules():
    recording = []
    for objective in OBJECTIVES + EDGE_OBJECTIVES:
        for window in WINDOWS:
            bad, total = (q.replace("[{w}]", f"[{window}]") for q in (objective.bad, objective.total))
            # `or total * 0`: a service without a bad call has a ratio of 0, not none.
            recording.append({"record": ratio_rule(objective, window),
                              "expr": f"(\n  {bad}\n  or\n  {total} * 0\n)\n/\n(\n  {total}\n)"})
    recording += [
        {"record": "service:rpc_server_requests:rate5m",
         "expr": "sum by (service) (rate(rpc_server_requests_total[5m]))"},
    ]
    for q in ("0.5", "0.99"):
        recording.append({
            "record": f"service:rpc_server_duration_seconds:p{q[2:].ljust(2, '0')}_rate5m",
            "expr": f'histogram_quantile({q}, sum by (service, le) (rate(rpc_server_duration_seconds_bucket{{method!~"{STREAMS}"}}[5m])))',
        })
    others = [{
        "alert": a.name, "expr": a.expr, "for": a.duration, "labels": {"severity": a.severity, **a.labels},
        "annotations": {"summary": a.summary, "runbook": a.runbook},
    } for a in ALERTS]
    return {"groups": [
        {"name": "rendezvous-recording", "interval": "30s", "rules": recording},
        {"name": "rendezvous-objectives", "rules": list(burn_alerts())},
        {"name": "rendezvous-alerts", "rules": others},
    ]}


class Dumper(yaml.SafeDumper):
    pass


def _str(dumper, value):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


Dumper.add_representer(str, _str)


def rules_text():
    header = "# Generated by compose/prometheus/generate.py from catalog.py: edit those, then run it.\n"
    return header + yaml.dump(rules(), Dumper=Dumper, sort_keys=False, width=200)


# Dashboards ---------------------------------------------------------------------------------

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


class Board:
    def __init__(self, title, uid, tags):
        self.title, self.uid, self.tags = title, uid, tags
        self.panels = []
        self.y = 0
        self.x = 0

    def panel(self, title, targets, unit="short", description="", thresholds=None):
        if self.x >= 24:
            self.x, self.y = 0, self.y + 8
        panel = {
            "id": len(self.panels) + 1, "type": "timeseries", "title": title, "description": description,
            "datasource": DATASOURCE, "gridPos": {"h": 8, "w": 12, "x": self.x, "y": self.y},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "options": {"legend": {"displayMode": "table", "placement": "bottom", "calcs": ["lastNotNull", "max"]}},
            "targets": [{"refId": chr(ord("A") + i), "datasource": DATASOURCE, "expr": expr, "legendFormat": legend}
                        for i, (expr, legend) in enumerate(targets)],
        }
        if thresholds is not None:
            panel["fieldConfig"]["defaults"]["thresholds"] = {"mode": "absolute", "steps": [
                {"color": "green", "value": None}, {"color": "red", "value": thresholds}]}
            panel["fieldConfig"]["defaults"]["custom"] = {"thresholdsStyle": {"mode": "line"}}
        self.panels.append(panel)
        self.x += 12

    def json(self, variables):
        return {
            "title": self.title, "uid": self.uid, "tags": self.tags, "editable": True, "schemaVersion": 39,
            "time": {"from": "now-6h", "to": "now"}, "refresh": "30s", "timezone": "utc",
            "templating": {"list": [
                {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus"},
                *variables,
            ]},
            "panels": self.panels,
        }


def instance_variable(service):
    return {"name": "instance", "label": "instance", "type": "query", "datasource": DATASOURCE,
            "query": f'label_values(up{{job="rendezvous",service="{service}"}}, instance)',
            "includeAll": True, "multi": True, "current": {"text": "All", "value": "$__all"}, "refresh": 2}


def service_board(service):
    s = f'service="{service}",instance=~"$instance"'
    board = Board(f"Rendezvous: {service}", f"rendezvous-{service}", ["rendezvous", service])
    board.panel("Calls per second by method", [
        (f"sum by (method) (rate(rpc_server_requests_total{{{s}}}[5m]))", "{{method}}")], unit="reqps")
    board.panel("Server errors per second by method and code", [
        (f'sum by (method, code) (rate(rpc_server_requests_total{{{s},code=~"{SERVER_ERRORS}"}}[5m]))',
         "{{method}} {{code}}")], unit="reqps",
        description="UNAVAILABLE, INTERNAL, DEADLINE_EXCEEDED, UNKNOWN, DATA_LOSS: what the availability objective counts")
    for objective in OBJECTIVES:
        board.panel(f"Objective: {objective.description}", [
            (f'{ratio_rule(objective, w)}{{service="{service}"}}', f"bad fraction, {w}") for w in ("5m", "1h", "6h")],
            unit="percentunit", thresholds=objective.budget,
            description=f"The fraction of calls that miss it; the line is the budget ({objective.budget * 100:g} %)")
    board.panel("Latency p99 by method", [
        (f'histogram_quantile(0.99, sum by (method, le) (rate(rpc_server_duration_seconds_bucket{{{s},method!~"{STREAMS}"}}[5m])))',
         "{{method}}")], unit="s")
    board.panel("Latency p50 by method", [
        (f'histogram_quantile(0.5, sum by (method, le) (rate(rpc_server_duration_seconds_bucket{{{s},method!~"{STREAMS}"}}[5m])))',
         "{{method}}")], unit="s")
    board.panel("Calls in progress", [(f"sum by (instance) (rpc_server_active_calls{{{s}}})", "{{instance}}")])
    board.panel("Postgres pool", [
        (f'sum by (instance) (db_pool_connections{{{s},state="in_use"}})', "in use {{instance}}"),
        (f"sum by (instance) (db_pool_connections_max{{{s}}})", "max {{instance}}"),
        (f"sum by (instance) (db_pool_waiters{{{s}}})", "waiting {{instance}}")])
    board.panel("Event consumer lag", [(f"max by (source) (event_consumer_lag_seconds{{{s}}})", "{{source}}")], unit="s",
                thresholds=120)
    board.panel("Outbox delivery held back", [(f"max by (outbox) (outbox_held_back_seconds{{{s}}})", "{{outbox}}")],
                unit="s", thresholds=30,
                description="How long committed events have waited behind a transaction still open in the cluster")
    if service in catalog.BY_NAME["push_deliveries_total"].services:
        board.panel("Pushes per second by outcome", [
            (f"sum by (status) (rate(push_deliveries_total{{{s}}}[5m]))", "{{status}}")], unit="reqps")
    if service == "media":
        board.panel("Uploads per second by code", [
            (f'sum by (method, code) (rate(rpc_server_requests_total{{{s},method=~"{UPLOADS}"}}[5m]))',
             "{{method}} {{code}}")], unit="reqps")
    return board.json([instance_variable(service)])


def edge_board():
    s = f'service="{catalog.EDGE}",instance=~"$instance"'
    board = Board("Rendezvous: edge", "rendezvous-edge", ["rendezvous", catalog.EDGE])
    board.panel("Responses per second by route", [
        (f"sum by (route) (rate(edge_responses_total{{{s}}}[5m]))", "{{route}}")], unit="reqps")
    board.panel("Server errors per second by route and code", [
        (f'sum by (route, code) (rate(edge_responses_total{{{s},code=~"{SERVER_ERRORS}|5xx"}}[5m]))',
         "{{route}} {{code}}")], unit="reqps",
        description="What the edge's availability objective counts: the services' server errors as apps get them, "
                    "and the edge's own UNAVAILABLE when no instance of a route's service answers")
    for objective in EDGE_OBJECTIVES:
        board.panel(f"Objective: {objective.description}", [
            (ratio_rule(objective, w), f"{{{{route}}}} {w}") for w in ("5m", "1h")],
            unit="percentunit", thresholds=objective.budget,
            description=f"The fraction of calls that miss it per route; the line is the budget ({objective.budget * 100:g} %)")
    board.panel("Responses per second by method and code", [
        (f'sum by (method, code) (rate(edge_responses_total{{{s},code!="OK"}}[5m]))', "{{method}} {{code}}")],
        unit="reqps", description="Every answer but OK: client errors (refusals, UNAUTHENTICATED) beside server errors")
    return board.json([instance_variable(catalog.EDGE)])


def system_board():
    board = Board("Rendezvous: system", "rendezvous-system", ["rendezvous"])
    board.panel("Calls per second by service", [("service:rpc_server_requests:rate5m", "{{service}}")], unit="reqps")
    board.panel("Instances up", [('sum by (service) (up{job="rendezvous"})', "{{service}}")])
    for objective in OBJECTIVES:
        board.panel(f"Objective: {objective.description}", [
            (ratio_rule(objective, "1h"), "{{service}}")], unit="percentunit", thresholds=objective.budget,
            description=f"Bad fraction over an hour per service; the line is the budget ({objective.budget * 100:g} %)")
    board.panel("Latency p99 by service", [("service:rpc_server_duration_seconds:p99_rate5m", "{{service}}")], unit="s")
    board.panel("Event consumer lag by service", [
        ("max by (service, source) (event_consumer_lag_seconds)", "{{service}} ← {{source}}")], unit="s", thresholds=120)
    board.panel("Outbox delivery held back", [
        ("max by (service, outbox) (outbox_held_back_seconds)", "{{outbox}}")], unit="s", thresholds=30)
    board.panel("Calls waiting for Postgres", [("sum by (service) (db_pool_waiters)", "{{service}}")])
    for objective in EDGE_OBJECTIVES:
        board.panel(f"Objective: {objective.description}", [(ratio_rule(objective, "1h"), "{{route}}")],
                    unit="percentunit", thresholds=objective.budget,
                    description=f"Bad fraction over an hour per edge route; the line is the budget ({objective.budget * 100:g} %)")
    board.panel("Alerts firing", [('sum by (alertname, service) (ALERTS{alertstate="firing"})', "{{alertname}} {{service}}")])
    return board.json([])


def outputs():
    files = {RULES: rules_text()}
    for service in SERVICES:
        files[os.path.join(DASHBOARDS, f"{service}.json")] = json.dumps(service_board(service), indent=2) + "\n"
    files[os.path.join(DASHBOARDS, f"{catalog.EDGE}.json")] = json.dumps(edge_board(), indent=2) + "\n"
    files[os.path.join(DASHBOARDS, "system.json")] = json.dumps(system_board(), indent=2) + "\n"
    return files


KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan", "by", "without", "on", "ignoring"}


def names_in(expr):
    """The metric names a PromQL expression selects: its identifiers that are neither functions,
    keywords, label names (in matchers and groupings) nor template variables."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}", "", expr)
    expr = re.sub(r"\[[^\]]*\]", "", expr)
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    names = set()
    for match in re.finditer(r"(?<![\w$.])([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?", expr):
        name, call = match.group(1), match.group(2)
        if not call and name not in KEYWORDS:
            names.add(name)
    return names


def exported_name(name):
    """The metric a series name belongs to (a histogram's _bucket, _count and _sum are its own)."""
    for suffix in ("_bucket", "_count", "_sum"):
        base = name[: -len(suffix)]
        if name.endswith(suffix) and base in catalog.BY_NAME and catalog.BY_NAME[base].kind == "histogram":
            return base
    return name


def used_metrics():
    """{metric: [where]} for every metric the rules and dashboards select (recording rules and
    Prometheus' own series left out), read from the generated files."""
    used = {}
    recorded = set()
    with open(RULES) as f:
        groups = yaml.safe_load(f)["groups"]
    for group in groups:
        for rule in group["rules"]:
            if "record" in rule:
                recorded.add(rule["record"])
            for name in names_in(rule["expr"]):
                used.setdefault(name, []).append(f"rule {rule.get('record') or rule.get('alert')}")
    for board in sorted(os.listdir(DASHBOARDS)):
        with open(os.path.join(DASHBOARDS, board)) as f:
            panels = json.load(f)["panels"]
        for panel in panels:
            for target in panel["targets"]:
                for name in names_in(target["expr"]):
                    used.setdefault(name, []).append(f"dashboards/{board}: {panel['title']}")
    return {exported_name(n): w for n, w in used.items() if n not in recorded and n not in catalog.PROMETHEUS_SERIES}


def unlisted_metrics():
    return {name: where for name, where in used_metrics().items() if name not in catalog.BY_NAME}


def readme_table():
    lines = ["| alert | severity | what it means | first step |", "|---|---|---|---|"]
    for objective in OBJECTIVES + EDGE_OBJECTIVES:
        for spec in BURN_ALERTS:
            windows = " or ".join(f"{l}/{s} over {b}×" for l, s, b in spec["conditions"])
            lines.append(f"| {catalog.burn_alert_name(objective, spec['suffix'])} | {spec['severity']} | "
                         f"{'a service' if objective.by == 'service' else 'an edge route'} burns its {objective.name} budget ({objective.description}): bad fraction over "
                         f"the budget's burn rate in both windows ({windows}) | {BURN_RUNBOOK[objective.name]} |")
    for a in ALERTS:
        lines.append(f"| {a.name} | {a.severity} | {a.meaning} | {a.runbook} |")
    return "\n".join(lines)


def main():
    if "--readme" in sys.argv:
        print(readme_table())
        return 0
    check = "--check" in sys.argv
    stale = []
    for path, text in outputs().items():
        current = open(path).read() if os.path.exists(path) else None
        if current == text:
            continue
        if check:
            stale.append(os.path.relpath(path, HERE))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if stale:
        print("generate.py: stale (run python3 compose/prometheus/generate.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    if check and readme_table() not in open(README).read():
        print("generate.py: README.md's alerts table (Operating) differs from catalog.py's alerts: paste "
              "python3 compose/prometheus/generate.py --readme into it", file=sys.stderr)
        return 1
    unlisted = unlisted_metrics()
    for name, where in sorted(unlisted.items()):
        print(f"generate.py: {name} is not in catalog.py's METRICS, but {where[0]} uses it", file=sys.stderr)
    return 1 if unlisted else 0


if __name__ == "__main__":
    sys.exit(main())
