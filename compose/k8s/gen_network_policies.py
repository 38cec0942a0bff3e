#!/usr/bin/env python3
"""Writes base/networkpolicies.yaml: the namespace's NetworkPolicies, derived from the consumer
contracts (Shared/Contracts/Consumers/*.json) and the services' ports (compose/env/<svc>.env).

  default-deny        every Pod: no ingress, no egress, unless a policy below allows it
  allow-dns           every Pod: egress to the cluster DNS (kube-system's kube-dns Pods), port 53
  edge                ingress on 8443/8080 from anywhere, on 8082 (its metrics) from Prometheus;
                      egress to every service's gRPC port and to media's admin port (signed
                      downloads, /media/v1/blobs/)
  <service>           ingress on its gRPC port from the edge and from the services whose
                      contracts name it as provider; on its admin port from Prometheus (and, for
                      media, the edge); egress to Postgres (5432) and to the gRPC port of each
                      provider its contracts name, and nothing else in the cluster
  postgres            ingress on 5432 from the five services (the dev overlay's Postgres)
  prometheus          no ingress (kubectl port-forward is not governed by NetworkPolicies); egress
                      to every service's admin port, the edge's metrics port, and the API server
                      (443, 6443: kubernetes_sd_configs), which is no Pod and has no fixed address

Only the Prometheus of base/prometheus.yaml (its Pod label, this namespace) reaches the admin
ports (metrics, /readyz), and for media the edge (signed downloads).

Which service runs a consumer: a consumer named after a service is that service (discovery.json:
discovery); a consumer whose "about" says every service runs it (auth, events, revocations: the
token verifier, the event consumer and the revocation feed in Shared/) is every service.
Anything else fails here, so a new contract has to say where it runs.

The kubelet's probes come from the node, which NetworkPolicies do not govern in common CNIs
(Calico, Cilium, kube-router allow host-to-Pod traffic), so no rule is needed for them.

A call a service makes that no contract declares is blocked: its RV_<PROVIDER>_ADDRESS in
compose/env makes check.py fail, until the consumer adds its contract.

  gen_network_policies.py           write base/networkpolicies.yaml
  gen_network_policies.py --check   exit 1 when the file differs from what would be written
"""
import glob
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
COMPOSE = os.path.dirname(HERE)
ROOT = os.path.dirname(COMPOSE)
OUTPUT = os.path.join(HERE, "base", "networkpolicies.yaml")
CONTRACTS = os.path.join(ROOT, "Shared", "Contracts", "Consumers")

SERVICES = ["identity", "discovery", "messaging", "production", "media"]
POSTGRES_PORT = 5432
EDGE_PORTS = [8443, 8080]
# rendezvous-edge's admin listener (--metrics 0.0.0.0:8082; render.sh --compose's --metrics-port).
EDGE_METRICS_PORT = 8082
# Where kubernetes_sd_configs reaches the API server: the `kubernetes` Service's 443, and the
# endpoints behind it (6443 on most distributions), after the CNI's address translation.
API_SERVER_PORTS = [443, 6443]
# Outside the cluster, HTTPS only (what compose's `environment:` points at): not another service.
EXTERNAL_HTTPS = {
    "discovery": "Instagram's Graph API (RV_INSTAGRAM_GRAPH_URL)",
    "messaging": "APNs (RV_APNS_HOST) and the icebreaker generator (RV_ICEBREAKER_URL)",
    "media": "an S3 bucket (RV_MEDIA_STORAGE=s3, RV_MEDIA_S3_ENDPOINT)",
}
PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16"]


class GenerationError(Exception):
    pass


def read_env(path):
    """KEY=VALUE lines of an env file (comments and blanks skipped), in order, later wins."""
    values = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def ports():
    """{service: (grpc port, admin port)} from compose/env/<service>.env (interop too)."""
    out = {}
    for svc in SERVICES + ["interop"]:
        env = read_env(os.path.join(COMPOSE, "env", f"{svc}.env"))
        up = svc.upper()
        if f"RV_{up}_PORT" not in env:
            raise GenerationError(f"compose/env/{svc}.env has no RV_{up}_PORT")
        grpc = int(env[f"RV_{up}_PORT"])
        out[svc] = (grpc, int(env.get(f"RV_{up}_ADMIN_PORT", grpc + 100)))
    return out


def contracts():
    """[(file name, consumer, provider, [services that run the consumer])]."""
    out = []
    for path in sorted(glob.glob(os.path.join(CONTRACTS, "*.json"))):
        name = os.path.basename(path)
        with open(path) as f:
            doc = json.load(f)
        consumer, provider, about = doc.get("consumer"), doc.get("provider"), doc.get("about", "")
        if not consumer or not provider:
            raise GenerationError(f"{name}: no \"consumer\" or \"provider\"")
        if provider not in SERVICES:
            raise GenerationError(f"{name}: provider '{provider}' is not a service ({', '.join(SERVICES)})")
        if consumer in SERVICES:
            runs_in = [consumer]
        elif re.search(r"\bevery service\b", about, re.IGNORECASE):
            runs_in = list(SERVICES)
        else:
            raise GenerationError(
                f"{name}: cannot tell which service runs consumer '{consumer}': name the consumer after "
                f"its service, or say in \"about\" that every service runs it")
        out.append((name, consumer, provider, runs_in))
    if not out:
        raise GenerationError(f"no consumer contracts in {os.path.relpath(CONTRACTS, ROOT)}")
    return out


def dependencies():
    """{service: {provider: [reasons]}}: who may call whom, and why."""
    deps = {svc: {} for svc in SERVICES}
    for name, consumer, provider, runs_in in contracts():
        for svc in runs_in:
            deps[svc].setdefault(provider, []).append(f"contract {name} (consumer {consumer})")
    return deps


def app(name):
    return {"podSelector": {"matchLabels": {"app.kubernetes.io/name": name}}}




def policy(name, selector, types, ingress=None, egress=None, annotations=None):
    doc = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
           "metadata": {"name": name, "labels": {"app.kubernetes.io/component": "network-policy"}},
           "spec": {"podSelector": selector, "policyTypes": types}}
    if annotations:
        doc["metadata"]["annotations"] = annotations
    if ingress is not None:
        doc["spec"]["ingress"] = ingress
    if egress is not None:
        doc["spec"]["egress"] = egress
    return doc


def tcp(*numbers):
    return [{"protocol": "TCP", "port": n} for n in numbers]


PROMETHEUS = app("prometheus")


def render():
    port = ports()
    deps = dependencies()
    docs = []  # (comment, document)
    docs.append(("Nothing in or out of any Pod in the namespace unless a policy below allows it.",
                 policy("default-deny", {}, ["Ingress", "Egress"])))
    docs.append(("Every Pod resolves names through the cluster DNS.",
                 policy("allow-dns", {}, ["Egress"], egress=[{
                     "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                             "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
                     "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}])))
    edge_egress = [{"to": [app(svc)], "ports": tcp(port[svc][0])} for svc in SERVICES + ["interop"]]
    edge_egress.append({"to": [app("media")], "ports": tcp(port["media"][1])})
    docs.append(("The edge: apps from anywhere, Prometheus on its metrics port; it reaches every service's gRPC "
                 "port and media's admin port (signed downloads).",
                 policy("edge", app("edge")["podSelector"], ["Ingress", "Egress"],
                        ingress=[{"ports": tcp(*EDGE_PORTS)}, {"from": [PROMETHEUS], "ports": tcp(EDGE_METRICS_PORT)}],
                        egress=edge_egress)))
    for svc in SERVICES:
        callers = sorted(c for c in SERVICES if svc in deps[c])
        ingress = [{"from": [app("edge")] + [app(c) for c in callers], "ports": tcp(port[svc][0])}]
        ingress.append({"from": [PROMETHEUS] + ([app("edge")] if svc == "media" else []), "ports": tcp(port[svc][1])})
        egress = [{"ports": tcp(POSTGRES_PORT)}]
        for provider in sorted(deps[svc]):
            egress.append({"to": [app(provider)], "ports": tcp(port[provider][0])})
        if svc in EXTERNAL_HTTPS:
            egress.append({"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": PRIVATE_RANGES}}], "ports": tcp(443)})
        why = "; ".join(f"{p}: {', '.join(r)}" for p, r in sorted(deps[svc].items()))
        undeclared = sorted(p for p, r in deps[svc].items() if all(x.startswith("UNDECLARED") for x in r))
        annotations = {"rendezvous.dev/calls": why}
        if undeclared:
            annotations["rendezvous.dev/undeclared-calls"] = ", ".join(undeclared)
        comment = (f"{svc}: called by the edge{''.join(', ' + c for c in callers)}; calls Postgres (5432, in the "
                   f"cluster in dev, the URL's host in prod)"
                   + "".join(f", {p} ({'; '.join(r)})" for p, r in sorted(deps[svc].items()))
                   + (f", and HTTPS outside the cluster: {EXTERNAL_HTTPS[svc]}" if svc in EXTERNAL_HTTPS else "")
                   + ". Prometheus scrapes its admin port.")
        docs.append((comment, policy(svc, app(svc)["podSelector"], ["Ingress", "Egress"],
                                     ingress=ingress, egress=egress, annotations=annotations)))
    docs.append(("interop: the edge's /grpc.testing. and /grpc.health. routes; calls nothing.",
                 policy("interop", app("interop")["podSelector"], ["Ingress", "Egress"],
                        ingress=[{"from": [app("edge")], "ports": tcp(port["interop"][0])},
                                 {"from": [PROMETHEUS], "ports": tcp(port["interop"][1])}],
                        egress=[])))
    scraped = [{"to": [app(svc)], "ports": tcp(port[svc][1])} for svc in SERVICES + ["interop"]]
    scraped.append({"to": [app("edge")], "ports": tcp(EDGE_METRICS_PORT)})
    docs.append(("prometheus: nothing comes in (kubectl port-forward to read it); it scrapes every service's admin "
                 "port and the edge's metrics, and lists the Pods through the API server (443/6443, no Pod, so no "
                 "selector).",
                 policy("prometheus", app("prometheus")["podSelector"], ["Ingress", "Egress"], ingress=[],
                        egress=scraped + [{"ports": tcp(*API_SERVER_PORTS)}])))
    docs.append(("postgres (the dev overlay's; in prod the database is outside the namespace): the services only.",
                 policy("postgres", app("postgres")["podSelector"], ["Ingress", "Egress"],
                        ingress=[{"from": [app(s) for s in SERVICES], "ports": tcp(POSTGRES_PORT)}], egress=[])))

    out = ["# Generated by compose/k8s/gen_network_policies.py from Shared/Contracts/Consumers/*.json,",
           "# and compose/env/*.env: edit those and run it, not this file.",
           "# check.py fails when this file is stale."]
    for comment, doc in docs:
        out.append("---")
        out.extend("# " + line for line in wrap(comment))
        out.append(yaml.safe_dump(doc, sort_keys=False, width=120, default_flow_style=None).rstrip())
    return "\n".join(out) + "\n"


def wrap(text, width=98):
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + ([line] if line else [])


def main(argv):
    try:
        text = render()
    except (GenerationError, OSError, ValueError, KeyError) as error:
        print(f"gen_network_policies.py: {error}", file=sys.stderr)
        return 2
    if argv[1:] == ["--check"]:
        try:
            with open(OUTPUT) as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current != text:
            print("compose/k8s/base/networkpolicies.yaml is stale: run python3 compose/k8s/gen_network_policies.py",
                  file=sys.stderr)
            return 1
        return 0
    if argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    with open(OUTPUT, "w") as f:
        f.write(text)
    print(f"wrote compose/k8s/base/networkpolicies.yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
