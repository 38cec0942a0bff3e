#!/usr/bin/env python3
"""Proves check.py catches what it is for: plants one defect at a time in a scratch copy of
compose/ and Shared/Contracts/Consumers (the working tree is never touched), runs check.py there,
and fails unless check.py exits 1 naming the defect. The unplanted copy must pass first.

  python3 compose/k8s/test_check.py
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMPOSE = os.path.dirname(HERE)
ROOT = os.path.dirname(COMPOSE)


def edit(path, fn):
    with open(path) as f:
        text = f.read()
    new = fn(text)
    assert new != text, f"plant changed nothing in {path}"
    with open(path, "w") as f:
        f.write(new)


def append(text_to_add):
    return lambda text: text + text_to_add


def run(*args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True)


# (name, plant(root), [regexes check.py's output must match])
PLANTS = [
    ("an undeclared RV_DISCOVERY_ADDRESS in media's env file (copies synced)",
     lambda root: (edit(f"{root}/compose/env/media.env", append("RV_DISCOVERY_ADDRESS=discovery:7102\n")),
                   run("compose/k8s/sync_config.py", cwd=root)),
     [r"FAIL \[network\] dev: media: RV_DISCOVERY_ADDRESS=discovery:7102 \(compose/env/media.env\) names discovery, "
      r"but the NetworkPolicies block media -> discovery:7102",
      r"FAIL \[network\] prod: media: RV_DISCOVERY_ADDRESS"]),
    ("an env file changed without sync_config.py",
     lambda root: edit(f"{root}/compose/env/messaging.env", append("RV_LOG_LEVEL=debug\n")),
     [r"FAIL \[copies\] compose/k8s/base/config/messaging.env differs from its source"]),
    ("a misspelt field (grpcc) in a probe",
     lambda root: edit(f"{root}/compose/k8s/base/identity.yaml",
                       lambda t: t.replace("livenessProbe:\n            grpc:", "livenessProbe:\n            grpcc:", 1)),
     [r"FAIL \[schema\] dev: Deployment/identity: spec.template.spec.containers.0.livenessProbe: "
      r"Additional properties are not allowed \('grpcc' was unexpected\)"]),
    ("a hand-added NetworkPolicy that opens every Pod",
     lambda root: edit(f"{root}/compose/k8s/base/networkpolicies.yaml", append("""---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-everything}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
  ingress: [{}]
  egress: [{}]
""")),
     [r"FAIL \[copies\] base/networkpolicies.yaml is stale",
      r"FAIL \[network\] dev: the NetworkPolicies let discovery call media:7105, which no consumer contract declares"]),
    ("the auth, events and revocations contracts removed (every service calls identity)",
     lambda root: (os.remove(f"{root}/Shared/Contracts/Consumers/auth.json"),
                   os.remove(f"{root}/Shared/Contracts/Consumers/events.json"),
                   os.remove(f"{root}/Shared/Contracts/Consumers/revocations.json"),
                   run("compose/k8s/gen_network_policies.py", cwd=root)),
     [r"FAIL \[network\] dev: production: RV_IDENTITY_ADDRESS=identity:7101 \(compose/env/common.env\) names identity, "
      r"but the NetworkPolicies block"]),
    ("a preStop hook that needs a shell",
     lambda root: edit(f"{root}/compose/k8s/base/media.yaml",
                       lambda t: t.replace("sleep: {seconds: 5}", "exec: {command: [/bin/sh, -c, sleep 5]}", 1)),
     [r"FAIL \[workloads\] dev: media: an exec hook or probe, but the service images have no shell",
      r"FAIL \[workloads\] dev: media: no preStop sleep"]),
    ("a secret moved into a ConfigMap",
     lambda root: (edit(f"{root}/compose/env/media.env", append("RV_MEDIA_URL_SECRET=oops-in-a-config-map\n")),
                   run("compose/k8s/sync_config.py", cwd=root)),
     [r"FAIL \[workloads\] dev: media: RV_MEDIA_URL_SECRET comes from a ConfigMap"]),
    ("Prometheus's Role without list and watch on Pods",
     lambda root: edit(f"{root}/compose/k8s/base/prometheus.yaml", lambda t: t.replace("verbs: [get, list, watch]", "verbs: [get]", 1)),
     [r"FAIL \[monitoring\] dev: prometheus: ServiceAccount prometheus may not list and watch pods",
      r"FAIL \[monitoring\] prod: prometheus: ServiceAccount prometheus may not list and watch pods"]),
    ("the admin ports opened to Pods labelled prometheus in any namespace (policies regenerated)",
     lambda root: (edit(f"{root}/compose/k8s/gen_network_policies.py",
                        lambda t: t.replace('PROMETHEUS = app("prometheus")',
                                            'PROMETHEUS = {"namespaceSelector": {}, **app("prometheus")}', 1)),
                   run("compose/k8s/gen_network_policies.py", cwd=root)),
     [r"FAIL \[monitoring\] dev: prometheus \(a Pod labelled prometheus in another namespace\) can reach identity's "
      r"admin port 7201; only Prometheus may"]),
    ("media's admin port opened to discovery (its egress, media's ingress; policies regenerated)",
     lambda root: (edit(f"{root}/compose/k8s/gen_network_policies.py",
                        lambda t: t.replace('([app("edge")] if svc == "media" else [])',
                                            '([app("edge"), app("discovery")] if svc == "media" else [])', 1)
                        .replace('        egress = [{"ports": tcp(POSTGRES_PORT)}]',
                                 '        egress = [{"ports": tcp(POSTGRES_PORT)}, {"to": [app("media")], "ports": tcp(port["media"][1])}]', 1)),
                   run("compose/k8s/gen_network_policies.py", cwd=root)),
     [r"FAIL \[monitoring\] dev: discovery can reach media's admin port 7205; only Prometheus may"]),
    ("the edge annotated for scraping on a port it does not serve",
     lambda root: edit(f"{root}/compose/k8s/base/edge.yaml",
                       lambda t: t.replace('prometheus.io/port: "8082"', 'prometheus.io/port: "8083"', 1)),
     [r"FAIL \[monitoring\] dev: edge: prometheus.io/port 8083 is not a port its container declares",
      r"FAIL \[monitoring\] dev: prometheus cannot scrape edge on 8083"]),
    ("the rules left out of Prometheus's ConfigMap",
     lambda root: edit(f"{root}/compose/k8s/base/kustomization.yaml",
                       lambda t: t.replace(", rendezvous.rules.yml=config/rendezvous.rules.yml]", "]", 1)),
     [r"FAIL \[monitoring\] dev: prometheus: rule file /etc/prometheus/rendezvous.rules.yml is in none of its ConfigMaps"]),
    ("a grace period shorter than preStop + the drain",
     lambda root: edit(f"{root}/compose/k8s/base/production.yaml",
                       lambda t: t.replace("terminationGracePeriodSeconds: 20", "terminationGracePeriodSeconds: 10", 1)),
     [r"FAIL \[workloads\] dev: production: terminationGracePeriodSeconds 10 < preStop 5 s"]),
]


def scratch_copy(into):
    shutil.copytree(COMPOSE, f"{into}/compose", ignore=shutil.ignore_patterns("tls", ".env", "__pycache__"))
    shutil.copytree(f"{ROOT}/Shared/Contracts/Consumers", f"{into}/Shared/Contracts/Consumers")


def main():
    started = time.monotonic()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="rv-k8s-check-") as tmp:
        clean = f"{tmp}/clean"
        scratch_copy(clean)
        proc = run("compose/k8s/check.py", cwd=clean)
        if proc.returncode != 0:
            print(f"FAIL the unplanted copy does not pass check.py:\n{proc.stdout}{proc.stderr}")
            return 1
        print("ok   the unplanted copy passes")
        for i, (name, plant, expected) in enumerate(PLANTS):
            root = f"{tmp}/plant{i}"
            shutil.copytree(clean, root)
            plant(root)
            proc = run("compose/k8s/check.py", cwd=root)
            missing = [e for e in expected if not re.search(e, proc.stdout)]
            if proc.returncode != 1 or missing:
                failed += 1
                print(f"FAIL {name}: exit {proc.returncode}, expected lines missing: {missing}\n{proc.stdout}{proc.stderr}")
            else:
                first = next(line for line in proc.stdout.splitlines() if re.search(expected[0], line))
                print(f"ok   {name}: exit 1\n       {first[:220]}")
            shutil.rmtree(root)
    print(f"test_check.py: {len(PLANTS) - failed}/{len(PLANTS)} plants caught ({time.monotonic() - started:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
