"""The one list of what Rendezvous measures and promises: every metric the services export that
the rules and dashboards use, the service levels, and the alerts.

generate.py writes rules/rendezvous.rules.yml and dashboards/*.json from it; check.py fails
when those are stale or name a metric that is not listed here; test_stack.py fails when a
listed metric is exported by no running service.

Every series carries `service` (identity, discovery, messaging, production, media, or `edge` for
rendezvous-edge, the edge's metrics) and `instance` (host:admin port), set by the scrape
configuration (compose/local/run.sh's file discovery, compose/prometheus/prometheus.compose.yml,
the Kubernetes ConfigMap).
"""
from dataclasses import dataclass, field

SERVICES = ["identity", "discovery", "messaging", "production", "media"]
# The edge's metrics come from rendezvous-edge (Shared/EdgeRunner), scraped as service="edge".
EDGE = "edge"


@dataclass(frozen=True)
class Metric:
    name: str
    kind: str  # counter, gauge, histogram
    help: str
    labels: tuple = ()
    # Which services export it: all of them unless named (push_deliveries_total: messaging with
    # push configured, RV_APNS_KEY_FILE and the rest).
    services: tuple = tuple(SERVICES)
    # Where the code that owns it lives.
    source: str = ""


METRICS = [
    Metric("rpc_server_requests_total", "counter", "Calls finished, by method and gRPC status code",
           ("method", "code"), source="Shared/Runtime/Metrics/MetricsInterceptor.swift"),
    Metric("rpc_server_duration_seconds", "histogram", "Call durations by method (buckets include 0.1 and 0.25 s)",
           ("method",), source="Shared/Runtime/Metrics/MetricsInterceptor.swift"),
    Metric("rpc_server_active_calls", "gauge", "Calls in progress",
           source="Shared/Runtime/Metrics/MetricsInterceptor.swift"),
    Metric("db_pool_connections", "gauge", "Postgres pool connections by state (in_use, idle)",
           ("state",), source="Shared/Runtime/Lifecycle/ServiceContext+Postgres.swift"),
    Metric("db_pool_connections_max", "gauge", "Most connections the Postgres pool opens",
           source="Shared/Runtime/Lifecycle/ServiceContext+Postgres.swift"),
    Metric("db_pool_waiters", "gauge", "Tasks waiting for a Postgres connection",
           source="Shared/Runtime/Lifecycle/ServiceContext+Postgres.swift"),
    Metric("event_consumer_lag_seconds", "gauge",
           "How far behind its producer an event consumer is: 0 while it is current, else the seconds since the oldest "
           "event it has not applied occurred or since its stream went down (ConsumerLag; /readyz fails past "
           "RV_EVENT_LAG_BOUND_SECONDS)",
           ("consumer",), source="Shared/Runtime/Lifecycle/ServiceContext+Events.swift"),
    Metric("event_consumer_skipped_events", "gauge",
           "Events a follower (an event consumer, or messaging's push planning from its realtime outbox, "
           "consumer=push-realtime) skipped since it started because their payload does not decode; each is logged as an "
           "error with its cursor, id and type (UndecodableEvents)",
           ("consumer",), source="Shared/Runtime/Events/UndecodableEvents.swift"),
    Metric("outbox_held_back_seconds", "gauge",
           "How long committed events of an outbox have waited for delivery behind a transaction still open in the "
           "cluster (the longest wait among its watchers; 0 when none waits)",
           ("outbox",), source="Shared/Runtime/Events/OutboxHoldBack.swift"),
    Metric("edge_responses_total", "counter",
           "Responses of the edge (nginx) by route (the service a path routes to, `downloads`, `interop`, `unrouted`), "
           "method (`other` for paths a client makes up) and code (the gRPC status's name, or the HTTP status class "
           "such as `5xx` when no gRPC status was sent: media's downloads)",
           ("route", "method", "code"), services=(EDGE,), source="Shared/EdgeRunner/EdgeMetrics.swift"),
    Metric("push_deliveries_total", "counter", "APNs pushes by how they ended (delivered, unregistered, bad_token, failed, rejected)",
           ("status",), services=("messaging",), source="Services/Messaging/Push/PushWorker.swift"),
]

BY_NAME = {m.name: m for m in METRICS}

# Series Prometheus makes itself (not exported by a service).
PROMETHEUS_SERIES = {"up", "ALERTS", "ALERTS_FOR_STATE", "scrape_duration_seconds", "scrape_samples_scraped"}

# gRPC status codes that are the server's fault; client errors (INVALID_ARGUMENT, NOT_FOUND,
# PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION, ...) are not.
SERVER_ERROR_CODES = ["UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED", "UNKNOWN", "DATA_LOSS"]
SERVER_ERRORS = "|".join(SERVER_ERROR_CODES)

# Long-lived streams (realtime, events, calls, health watches, session watches): their duration is
# the subscription's, and a drain ends them on purpose, so they are in neither objective.
STREAMS = ".*/(Watch[A-Za-z]*|Subscribe|Attach|Signal)"
# Reads, as the capacity benchmark counts them (Tests/Benchmarks/CapacityBench/UserModel.swift):
# lookups and listings. Every other unary call, and Upload, is a write.
READS = ".*/((Get|List|Check|Preview)[A-Za-z]*|MatchContacts)"


@dataclass(frozen=True)
class Objective:
    """A service level per service: calls matching `selector` whose bad fraction must stay
    under `budget` (1 - target) over 30 days."""
    name: str
    sli: str  # the recording rule's stem: <by>:<sli>:ratio_rate<window>
    description: str
    budget: float
    # PromQL of (bad, total) per `by` label over a window, `{w}` standing for it.
    bad: str
    total: str
    # The label the objective is kept per, and how an alert names what burns.
    by: str = "service"
    subject: str = "{{ $labels.service }}"


def _latency(kind, selector, seconds):
    return Objective(
        name=f"{kind} latency",
        sli=f"rpc_{kind}_slow",
        description=f"99 % of {kind}s answered within {int(seconds * 1000)} ms",
        budget=0.01,
        bad=(f"sum by (service) (rate(rpc_server_duration_seconds_count{{{selector}}}[{{w}}]))"
             f" - sum by (service) (rate(rpc_server_duration_seconds_bucket{{{selector},le=\"{seconds}\"}}[{{w}}]))"),
        total=f"sum by (service) (rate(rpc_server_duration_seconds_count{{{selector}}}[{{w}}]))",
    )


OBJECTIVES = [
    Objective(
        name="availability", sli="rpc_errors",
        description="99.9 % of calls without a server error",
        budget=0.001,
        bad=f'sum by (service) (rate(rpc_server_requests_total{{method!~"{STREAMS}",code=~"{SERVER_ERRORS}"}}[{{w}}]))',
        total=f'sum by (service) (rate(rpc_server_requests_total{{method!~"{STREAMS}"}}[{{w}}]))',
    ),
    _latency("read", f'method=~"{READS}"', 0.1),
    _latency("write", f'method!~"{READS}",method!~"{STREAMS}"', 0.25),
]

# What apps see at the edge, per route (the service behind it): calls the edge answered with a
# server error, its own UNAVAILABLE when no instance of the service answers included, or an HTTP
# 5xx (media's downloads). It burns while a service's own availability looks fine when the edge
# cannot reach its instances (all down, a NetworkPolicy, a stale address).
EDGE_OBJECTIVES = [
    Objective(
        name="edge availability", sli="edge_errors", by="route", subject="the edge's {{ $labels.route }} route",
        description="99.9 % of calls through the edge without a server error",
        budget=0.001,
        bad=f'sum by (route) (rate(edge_responses_total{{method!~"{STREAMS}",code=~"{SERVER_ERRORS}|5xx"}}[{{w}}]))',
        total=f'sum by (route) (rate(edge_responses_total{{method!~"{STREAMS}"}}[{{w}}]))',
    ),
]

# The SRE workbook's multiwindow, multi-burn-rate alerts (chapter 5, "Alerting on SLOs", the
# recommended parameters for a 30-day budget): 2 % of the budget in an hour or 5 % in six hours
# pages; 10 % in a day or in three days makes a ticket. Each condition needs both its long and
# its short window over the burn rate, so an alert stops soon after the burning does.
BURN_ALERTS = [
    {"suffix": "", "severity": "page", "for": "2m", "conditions": [("1h", "5m", 14.4), ("6h", "30m", 6)]},
    {"suffix": "Slow", "severity": "ticket", "for": "15m", "conditions": [("1d", "2h", 3), ("3d", "6h", 1)]},
]


def minutes(window):
    return int(window[:-1]) * {"m": 1, "h": 60, "d": 1440}[window[-1]]


WINDOWS = sorted({w for a in BURN_ALERTS for c in a["conditions"] for w in c[:2]}, key=minutes)


@dataclass(frozen=True)
class Alert:
    name: str
    expr: str
    duration: str
    severity: str
    summary: str
    runbook: str  # the first thing to do
    meaning: str = ""
    labels: dict = field(default_factory=dict)


UPLOADS = ".*/(CreateUpload|Upload|AddPhoto|AddEventPhoto)"

ALERTS = [
    Alert("InstanceDown", 'up{job="rendezvous"} == 0', "2m", "page",
          "{{ $labels.service }} instance {{ $labels.instance }} does not answer scrapes",
          "Check the process or Pod is running and its /healthz answers (make run's log, kubectl describe pod); "
          "restart it if it hangs.",
          meaning="Prometheus cannot scrape an instance's admin port (or the edge's metrics port, service edge) "
                  "for 2 minutes."),
    Alert("EventConsumerLagging", "max by (service, consumer) (event_consumer_lag_seconds) > 120", "5m", "page",
          "{{ $labels.service }} is {{ $value | humanizeDuration }} behind {{ $labels.consumer }}'s events",
          "Look for 'event stream broke' warnings in the consumer's log: the producer down or refusing its credential, "
          "or an event it cannot apply (the same error repeating).",
          meaning="An event consumer is more than 2 minutes behind its producer's stream for 5 minutes (matches not "
                  "becoming conversations, pushes late, deletions not purged)."),
    Alert("EventsSkipped", "max by (service, consumer) (delta(event_consumer_skipped_events[15m])) > 0", "0m", "ticket",
          "{{ $labels.service }}'s {{ $labels.consumer }} follower skipped events that do not decode",
          "Find 'event skipped: its payload does not decode' in the service's log: each line names the event's cursor, id "
          "and type, and the event is still in its producer's outbox. A producer writing bad payloads (a bug, a version "
          "mismatch) or rows written by hand; what the events would have done (a push, a projection's change) did not "
          "happen.",
          meaning="A follower passed over events whose payload does not decode in the last 15 minutes, rather than "
                  "stopping at them (the events after them were applied)."),
    Alert("OutboxDeliveryHeldBack", "max by (service, outbox) (outbox_held_back_seconds) > 30", "2m", "page",
          "{{ $labels.service }}'s {{ $labels.outbox }} events wait {{ $value | humanizeDuration }} behind an open transaction",
          "Find the oldest open transaction in the cluster: SELECT pid, usename, application_name, xact_start, state, query "
          "FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY age(backend_xid) DESC LIMIT 5; end it "
          "(pg_terminate_backend) if it is stuck.",
          meaning="Committed events have waited more than 30 s for delivery, for 2 minutes: a transaction left open "
                  "anywhere in the cluster holds back every outbox's stream (the outbox's only backlog; see Outbox)."),
    Alert("PostgresPoolSaturated",
          "max by (service, instance) (avg_over_time(db_pool_waiters[5m])) > 1",
          "10m", "page",
          "{{ $labels.service }} ({{ $labels.instance }}) waits for Postgres connections",
          "Find what holds the connections: pg_stat_activity for the service's role (long or idle-in-transaction "
          "sessions) or slow statements; if it is load, add instances (each holds db_pool_connections_max connections) "
          "within Postgres' max_connections.",
          meaning="Calls queue for a Postgres connection (every one in use), more than one on average, for 10 minutes."),
    Alert("PushFailures",
          'sum by (service) (rate(push_deliveries_total{status=~"failed|rejected"}[15m]))'
          " / sum by (service) (rate(push_deliveries_total[15m])) > 0.05"
          " and sum by (service) (increase(push_deliveries_total[15m])) >= 20",
          "15m", "page",
          "{{ $value | humanizePercentage }} of pushes fail",
          "Query messaging.push_deliveries for the newest failed/rejected rows: http_status and reason say whether "
          "APNs is down (5xx, 429), the provider token is refused (403) or the payload is (400).",
          meaning="More than 5 % of APNs pushes failed or were refused over 15 minutes (at least 20 pushes)."),
    Alert("UploadFailures",
          f'sum by (service) (rate(rpc_server_requests_total{{method=~"{UPLOADS}",code=~"{SERVER_ERRORS}"}}[15m]))'
          f' / sum by (service) (rate(rpc_server_requests_total{{method=~"{UPLOADS}"}}[15m])) > 0.01'
          f' and sum by (service) (increase(rpc_server_requests_total{{method=~"{UPLOADS}"}}[15m])) >= 20',
          "10m", "page",
          "{{ $value | humanizePercentage }} of uploads fail with a server error",
          "Check media's blob storage: free space and permissions of RV_MEDIA_STORAGE_DIR (or the S3 bucket's "
          "reachability), then media's log for the failing calls.",
          meaning="More than 1 % of upload calls (CreateUpload, Upload, AddPhoto, AddEventPhoto) failed with a server "
                  "error over 15 minutes (client errors such as a too-large photo do not count)."),
]


def burn_alert_name(objective, suffix):
    return "".join(p.capitalize() for p in objective.name.split()) + "BudgetBurn" + suffix
