#!/usr/bin/env python3
"""Checks compose/k8s: renders both overlays and fails, one line per problem, on

  copies      a stale copy of compose's config (sync_config.py) or a stale generated
              base/networkpolicies.yaml (gen_network_policies.py)
  render      an overlay that `kubectl kustomize` cannot render
  schema      a document that is not valid against the Kubernetes API's schemas of version
              K8S_VERSION (kubernetes-validate's offline schemas, strict: unknown fields fail)
  workloads   a service without its Service, HorizontalPodAutoscaler or PodDisruptionBudget; ports
              that disagree with compose/env; missing gRPC probes, preStop sleep, resources or
              security settings; a grace period shorter than preStop + RV_SHUTDOWN_GRACE_SECONDS;
              an exec hook in an image without a shell; a secret compose passes that the
              Deployment does not reference; the wrong replica count or images for the overlay
  network     a call the rendered configuration makes (RV_<X>_ADDRESS, the edge's upstreams,
              RV_PG_URL_<X>, DNS) that the rendered NetworkPolicies block; a service-to-service
              call they allow that no consumer contract (Shared/Contracts/Consumers) declares
  monitoring  no Prometheus (base/prometheus.yaml), or one with a dev image in prod, or whose
              ConfigMap lacks the file its --config.file or rule_files name; kubernetes_sd_configs
              without a ServiceAccount
              allowed to list and watch Pods; a service or the edge not annotated for scraping, or
              a scraped port its Pod does not declare or the NetworkPolicies keep Prometheus from;
              a Pod other than Prometheus (the edge for media's downloads) that can reach a
              service's admin port

The network checks evaluate the rendered NetworkPolicies as a cluster would (selectors, named
ports, policy types; default deny once a policy selects a Pod), so they test what is deployed.
Exit 0 when all pass, 1 when any fails, 2 when a tool is missing (kubectl, kubernetes-validate:
`pip install kubernetes-validate`).

  python3 compose/k8s/check.py [-v]
"""
import base64
import concurrent.futures
import ipaddress
import json
import os
import re
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
COMPOSE = os.path.dirname(HERE)
ROOT = os.path.dirname(COMPOSE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ beside the manifests
import gen_network_policies as netgen  # noqa: E402
import sync_config  # noqa: E402

K8S_VERSION = "1.30"
OVERLAYS = {"dev": 1, "prod": 2}  # overlay: replicas per Deployment
SERVICES = netgen.SERVICES
WORKLOADS = SERVICES + ["interop", "edge"]
PRESTOP_SECONDS_MIN = 3
# Stand-ins for places outside the cluster: a managed Postgres and an HTTPS API on the internet;
# the API server's endpoint (no Pod).
EXTERNAL_POSTGRES = "203.0.113.10"
EXTERNAL_HTTPS = "198.51.100.7"
API_SERVER = "192.0.2.10"


class Report:
    def __init__(self, verbose):
        self.failures, self.warnings, self.verbose = [], [], verbose

    def fail(self, area, message):
        self.failures.append(f"FAIL [{area}] {message}")

    def warn(self, area, message):
        self.warnings.append(f"warn [{area}] {message}")

    def info(self, message):
        if self.verbose:
            print(f"  {message}")


# ---------------------------------------------------------------- rendering and schemas

def render(overlay):
    path = os.path.join(HERE, "overlays", overlay)
    proc = subprocess.run(["kubectl", "kustomize", path], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip()
    return [d for d in yaml.safe_load_all(proc.stdout) if d], None


def validate_schemas(report, overlay, docs):
    import kubernetes_validate
    from kubernetes_validate.utils import all_versions
    if not any(v.startswith(K8S_VERSION + ".") for v in all_versions()):
        report.fail("schema", f"kubernetes-validate {kubernetes_validate.version.__version__ if hasattr(kubernetes_validate, 'version') else ''}"
                              f" has no schemas for Kubernetes {K8S_VERSION}")
        return
    for doc in docs:
        name = f"{overlay}: {doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
        try:
            used = kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
            if used != K8S_VERSION:
                report.fail("schema", f"{name}: validated against {used}, not {K8S_VERSION}")
        except kubernetes_validate.ValidationError as error:
            path = ".".join(str(p) for p in error.absolute_path) or "(document)"
            report.fail("schema", f"{name}: {path}: {error.message}")
        except kubernetes_validate.SchemaNotFoundError:
            report.fail("schema", f"{name}: no schema for {doc.get('apiVersion')} {doc.get('kind')} in Kubernetes {K8S_VERSION}")


# ---------------------------------------------------------------- the rendered objects

class Rendered:
    def __init__(self, docs):
        self.docs = docs
        self.by_kind = {}
        for d in docs:
            self.by_kind.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
        self.namespace = next((d["metadata"]["name"] for d in docs if d["kind"] == "Namespace"), None)
        self.pods = {}  # workload name -> Pod
        for kind in ("Deployment", "StatefulSet"):
            for name, d in self.by_kind.get(kind, {}).items():
                self.pods[name] = Pod(name, d["metadata"].get("namespace", self.namespace),
                                      d["spec"]["template"]["metadata"].get("labels", {}),
                                      d["spec"]["template"]["spec"])
        self.policies = list(self.by_kind.get("NetworkPolicy", {}).values())

    def get(self, kind, name):
        return self.by_kind.get(kind, {}).get(name)

    def container_env(self, workload):
        """{variable: (value, where)} as the container sees it: envFrom in order, then env."""
        pod = self.pods[workload]
        c = pod.spec["containers"][0]
        env = {}
        for source in c.get("envFrom", []):
            if "configMapRef" in source:
                cm = self.get("ConfigMap", source["configMapRef"]["name"]) or {}
                for k, v in (cm.get("data") or {}).items():
                    env[k] = (v, f"ConfigMap {source['configMapRef']['name']}")
            if "secretRef" in source:
                secret = self.get("Secret", source["secretRef"]["name"])
                for k, v in ((secret or {}).get("data") or {}).items():
                    env[k] = (base64.b64decode(v).decode(), f"Secret {source['secretRef']['name']}")
        for item in c.get("env", []):
            if "value" in item:
                env[item["name"]] = (item["value"], "env")
            elif "secretKeyRef" in item.get("valueFrom", {}):
                ref = item["valueFrom"]["secretKeyRef"]
                secret = self.get("Secret", ref["name"])
                data = (secret or {}).get("data") or {}
                value = base64.b64decode(data[ref["key"]]).decode() if ref["key"] in data else None
                env[item["name"]] = (value, f"Secret {ref['name']} key {ref['key']}")
        return env

    def resolve_service(self, host, port):
        """(Pod, container port) behind Service `host` port `port`, or (None, reason)."""
        svc = self.get("Service", host.split(".")[0])
        if svc is None:
            return None, f"no Service named {host}"
        for p in svc["spec"].get("ports", []):
            if p["port"] == port:
                target = p.get("targetPort", port)
                for pod in self.pods.values():
                    if selects({"matchLabels": svc["spec"].get("selector", {})}, pod.labels):
                        number = pod.port_number(target)
                        if number is None:
                            return None, f"Service {host} targets port {target}, which its Pods do not declare"
                        return (pod, number), None
                return None, f"Service {host} selects no Pod"
        return None, f"Service {host} has no port {port}"


class Pod:
    def __init__(self, name, namespace, labels, spec):
        self.name, self.namespace, self.labels, self.spec = name, namespace, labels, spec

    def port_number(self, port):
        if isinstance(port, int):
            return port
        for c in self.spec.get("containers", []):
            for p in c.get("ports", []):
                if p.get("name") == port:
                    return p["containerPort"]
        return None

    def __repr__(self):
        return self.name


KUBE_DNS = Pod("kube-dns", "kube-system", {"k8s-app": "kube-dns"},
               {"containers": [{"ports": [{"name": "dns", "containerPort": 53, "protocol": "UDP"}]}]})


# ---------------------------------------------------------------- NetworkPolicy semantics

def selects(selector, labels):
    if selector is None:
        return False
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values", [])
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def namespace_labels(name):
    return {"kubernetes.io/metadata.name": name}


def peer_matches(peer, policy_namespace, target):
    """Whether a from/to peer covers `target`: a Pod, or an external IP address (str)."""
    if isinstance(target, str):
        if "ipBlock" not in peer:
            return False
        block = peer["ipBlock"]
        ip = ipaddress.ip_address(target)
        return ip in ipaddress.ip_network(block["cidr"]) and not any(
            ip in ipaddress.ip_network(e) for e in block.get("except", []))
    if "ipBlock" in peer:
        return False  # Pod addresses are not what ipBlock is for (and are unknown here)
    if "namespaceSelector" in peer:
        if not selects(peer["namespaceSelector"], namespace_labels(target.namespace)):
            return False
    elif target.namespace != policy_namespace:
        return False
    return "podSelector" not in peer or selects(peer["podSelector"], target.labels)


def port_matches(rule_ports, port, protocol, dest):
    if not rule_ports:
        return True
    for p in rule_ports:
        if p.get("protocol", "TCP") != protocol:
            continue
        if "port" not in p:
            return True
        number = dest.port_number(p["port"]) if isinstance(dest, Pod) else (p["port"] if isinstance(p["port"], int) else None)
        if number is None:
            continue
        if number == port or ("endPort" in p and number <= port <= p["endPort"]):
            return True
    return False


def policy_types(policy):
    spec = policy["spec"]
    return spec.get("policyTypes") or (["Ingress"] + (["Egress"] if "egress" in spec else []))


def direction_allowed(policies, pod, other, port, protocol, direction):
    """Whether `pod` may send (Egress) to / receive (Ingress) from `other` on `port`."""
    kind, field, peer_field = ("Egress", "egress", "to") if direction == "Egress" else ("Ingress", "ingress", "from")
    selecting = [p for p in policies
                 if kind in policy_types(p) and p["metadata"].get("namespace") == pod.namespace
                 and selects(p["spec"]["podSelector"], pod.labels)]
    if not selecting:
        return True, []
    dest = other if direction == "Egress" else pod
    for p in selecting:
        for rule in p["spec"].get(field) or []:
            peers = rule.get(peer_field)
            if peers and not any(peer_matches(peer, p["metadata"].get("namespace"), other) for peer in peers):
                continue
            if port_matches(rule.get("ports"), port, protocol, dest):
                return True, [p["metadata"]["name"]]
    return False, [p["metadata"]["name"] for p in selecting]


def connection_allowed(policies, src, dst, port, protocol="TCP"):
    """None when src may reach dst:port, else why not."""
    ok, names = direction_allowed(policies, src, dst, port, protocol, "Egress")
    if not ok:
        return f"egress from {src} blocked (policies selecting it: {', '.join(names)})"
    if isinstance(dst, Pod) and dst.namespace != "kube-system":
        ok, names = direction_allowed(policies, dst, src, port, protocol, "Ingress")
        if not ok:
            return f"ingress to {dst} blocked (policies selecting it: {', '.join(names)})"
    return None


# ---------------------------------------------------------------- checks

def env_file_for(svc, key):
    for name in ([svc] + (["common"] if svc != "interop" else [])):
        if key in netgen.read_env(os.path.join(COMPOSE, "env", f"{name}.env")):
            return f"compose/env/{name}.env"
    return "the rendered config"


def compose_secrets():
    """{service: [keys]}: the variables docker-compose.yml passes a service from compose/.env secrets."""
    with open(os.path.join(COMPOSE, "docker-compose.yml")) as f:
        compose = yaml.safe_load(f)
    secret_vars = set(netgen.read_env(os.path.join(COMPOSE, ".env.example")))
    out = {}
    for svc in SERVICES:
        env = (compose["services"].get(svc) or {}).get("environment") or {}
        keys = []
        for key, value in env.items():
            used = set(re.findall(r"\$\{([A-Z0-9_]+)", str(value)))
            if used & secret_vars:
                keys.append(key)
        out[svc] = keys
    return out


def dockerfile_stage(stage):
    """{"ENTRYPOINT": [...], "USER": "..."} of a stage in compose/Dockerfile (the lead's images)."""
    import json
    out, current = {}, None
    try:
        lines = open(os.path.join(COMPOSE, "Dockerfile")).read().splitlines()
    except OSError:
        return out
    for line in lines:
        m = re.match(r"FROM\s+\S+\s+AS\s+(\S+)", line, re.IGNORECASE)
        if m:
            current = m.group(1)
            continue
        if current != stage:
            continue
        if line.startswith("ENTRYPOINT "):
            out["ENTRYPOINT"] = json.loads(line[len("ENTRYPOINT "):])
        elif line.startswith("USER "):
            out["USER"] = line.split()[1]
    return out


def check_images(report, overlay, r):
    """What the manifests assume about compose/Dockerfile's images."""
    edge = r.pods.get("edge")
    entry = dockerfile_stage("edge").get("ENTRYPOINT")
    if edge and entry:
        c = edge.spec["containers"][0]
        command = c.get("command") or []
        if command and command[0] != entry[0]:
            report.fail("workloads", f"{overlay}: edge runs {command[0]}, but the edge image's entry point is {entry[0]}")
        if "--prefix" in command:
            prefix = command[command.index("--prefix") + 1].rstrip("/")
            if not any(m["mountPath"].rstrip("/") == prefix for m in c.get("volumeMounts", [])):
                report.fail("workloads", f"{overlay}: edge: nginx's prefix {prefix} is not a volume (read-only root filesystem)")
    user = dockerfile_stage("service").get("USER")
    if user and user.split(":")[0] != "10001":
        report.fail("workloads", f"compose/Dockerfile's service stage runs as {user}, the manifests as 10001")


def check_workloads(report, overlay, r, replicas):
    env_ports = netgen.ports()
    grace_seconds = int(netgen.read_env(os.path.join(COMPOSE, "env", "common.env")).get("RV_SHUTDOWN_GRACE_SECONDS", 10))
    secrets = compose_secrets()
    for name in WORKLOADS:
        where = f"{overlay}: {name}"
        dep = r.get("Deployment", name)
        if dep is None:
            report.fail("workloads", f"{where}: no Deployment")
            continue
        for kind in ("Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"):
            if r.get(kind, name) is None:
                report.fail("workloads", f"{where}: no {kind} {name}")
        hpa = r.get("HorizontalPodAutoscaler", name)
        if hpa and not any(m.get("resource", {}).get("name") == "cpu" for m in hpa["spec"].get("metrics", [])):
            report.fail("workloads", f"{where}: the HorizontalPodAutoscaler does not scale on CPU")
        if dep["spec"].get("replicas") != replicas:
            report.fail("workloads", f"{where}: {dep['spec'].get('replicas')} replicas, want {replicas} in {overlay}")
        spec = dep["spec"]["template"]["spec"]
        c = spec["containers"][0]
        image = c.get("image", "")
        want = f"rendezvous/{name}:dev"
        if overlay == "dev" and image != want:
            report.fail("workloads", f"{where}: image {image}, want {want}")
        if overlay == "prod" and (image.endswith(":dev") or image.startswith("rendezvous/")):
            report.fail("workloads", f"{where}: image {image}: prod sets the registry and tag (images: in its kustomization)")
        psc, csc = spec.get("securityContext", {}), c.get("securityContext", {})
        if not psc.get("runAsNonRoot") or psc.get("runAsUser") != 10001:
            report.fail("workloads", f"{where}: not runAsNonRoot with runAsUser 10001")
        if (psc.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
            report.fail("workloads", f"{where}: seccompProfile is not RuntimeDefault")
        if csc.get("capabilities", {}).get("drop") != ["ALL"] or csc.get("allowPrivilegeEscalation") is not False:
            report.fail("workloads", f"{where}: capabilities not dropped (ALL) or privilege escalation allowed")
        if not csc.get("readOnlyRootFilesystem"):
            report.fail("workloads", f"{where}: root filesystem not read-only")
        res = c.get("resources", {})
        for part in ("requests", "limits"):
            for what in ("cpu", "memory"):
                if what not in res.get(part, {}):
                    report.fail("workloads", f"{where}: no {what} {part[:-1]}")
        pre = (c.get("lifecycle") or {}).get("preStop") or {}
        if "exec" in pre or any("exec" in (p or {}) for p in (c.get("livenessProbe"), c.get("readinessProbe"), c.get("startupProbe"))):
            if name in SERVICES + ["interop"]:
                report.fail("workloads", f"{where}: an exec hook or probe, but the service images have no shell or tools")
        sleep = (pre.get("sleep") or {}).get("seconds")
        if sleep is None or sleep < PRESTOP_SECONDS_MIN:
            report.fail("workloads", f"{where}: no preStop sleep of at least {PRESTOP_SECONDS_MIN} s")
        grace = spec.get("terminationGracePeriodSeconds", 30)
        if name != "edge" and sleep is not None and grace < sleep + grace_seconds + 1:
            report.fail("workloads", f"{where}: terminationGracePeriodSeconds {grace} < preStop {sleep} s + "
                                     f"RV_SHUTDOWN_GRACE_SECONDS {grace_seconds} s + margin")
        if name == "edge":
            continue
        grpc_port, admin_port = env_ports[name]
        ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
        if ports.get("grpc") != grpc_port or ports.get("admin") != admin_port:
            report.fail("workloads", f"{where}: container ports {ports}, compose/env/{name}.env says grpc {grpc_port}, admin {admin_port}")
        for probe in ("livenessProbe", "readinessProbe"):
            p = c.get(probe) or {}
            if (p.get("grpc") or {}).get("port") != grpc_port:
                report.fail("workloads", f"{where}: {probe} is not grpc on port {grpc_port}")
        svc = r.get("Service", name)
        if svc:
            sports = {p["port"] for p in svc["spec"]["ports"]}
            if grpc_port not in sports or admin_port not in sports:
                report.fail("workloads", f"{where}: Service ports {sorted(sports)}, want {grpc_port} and {admin_port}")
        env = r.container_env(name)
        for key in secrets.get(name, []):
            if key not in env or not env[key][1].startswith("Secret"):
                report.fail("workloads", f"{where}: {key} (a secret in docker-compose.yml) is not taken from a Secret")
            elif overlay == "dev" and env[key][0] is None:
                report.fail("workloads", f"{where}: {key}: the dev Secret has no value for it")
        for source in c.get("envFrom", []):
            cm_name = (source.get("configMapRef") or {}).get("name")
            for key in ((r.get("ConfigMap", cm_name) or {}).get("data") or {}) if cm_name else []:
                if re.search(r"SECRET|PASSWORD|_KEY$|CREDENTIALS|_PG_URL_", key) and not key.endswith(("_KEY_FILE", "_KEY_ID")):
                    report.fail("workloads", f"{where}: {key} comes from a ConfigMap ({cm_name}); secrets belong in "
                                             f"Secret rendezvous-{name}")


def check_network(report, overlay, r, declared):
    policies = r.policies
    names = {p["metadata"]["name"] for p in policies}
    deny = [p for p in policies if p["spec"]["podSelector"] == {} and set(policy_types(p)) == {"Ingress", "Egress"}
            and not p["spec"].get("ingress") and not p["spec"].get("egress")]
    if not deny:
        report.fail("network", f"{overlay}: no default-deny NetworkPolicy (ingress and egress) for the namespace")
    if not r.pods:
        return
    # DNS from every Pod.
    for pod in r.pods.values():
        why = connection_allowed(policies, pod, KUBE_DNS, 53, "UDP")
        if why:
            report.fail("network", f"{overlay}: {pod} cannot resolve names (DNS, UDP 53): {why}")
    # What each service's configuration dials.
    needed = set()
    for svc in SERVICES:
        src = r.pods.get(svc)
        if src is None:
            continue
        env = r.container_env(svc)
        for key, (value, source) in sorted(env.items()):
            m = re.fullmatch(r"RV_([A-Z]+)_ADDRESS", key)
            if not m or value is None:
                continue
            origin = env_file_for(svc, key)
            host, _, port = value.rpartition(":")
            target, why = r.resolve_service(host, int(port)) if port.isdigit() else (None, "not host:port")
            if target is None:
                report.fail("network", f"{overlay}: {svc}: {key}={value} ({origin}): {why}")
                continue
            dst, number = target
            needed.add((svc, dst.name))
            blocked = connection_allowed(policies, src, dst, number)
            if blocked:
                report.fail("network", f"{overlay}: {svc}: {key}={value} ({origin}) names {dst.name}, but the NetworkPolicies "
                                       f"block {svc} -> {dst.name}:{number}: {blocked}. No consumer contract in "
                                       f"Shared/Contracts/Consumers has {svc} calling {dst.name}: add one, then run "
                                       f"gen_network_policies.py")
        # Postgres: the dev Secret's URL, or (prod) any address outside the cluster.
        url = next((v for k, (v, _) in env.items() if k.startswith("RV_PG_URL_")), None)
        if url:
            m = re.match(r"postgres(?:ql)?://[^@]*@([^:/]+)(?::(\d+))?/", url)
            target, why = r.resolve_service(m.group(1), int(m.group(2) or 5432)) if m else (None, "unparsed URL")
            if target is None:
                report.fail("network", f"{overlay}: {svc}: RV_PG_URL: {why}")
            else:
                blocked = connection_allowed(policies, src, target[0], target[1])
                if blocked:
                    report.fail("network", f"{overlay}: {svc} cannot reach Postgres at {m.group(1)}:{target[1]}: {blocked}")
        else:
            blocked = connection_allowed(policies, src, EXTERNAL_POSTGRES, 5432)
            if blocked:
                report.fail("network", f"{overlay}: {svc} cannot reach a Postgres outside the cluster (5432): {blocked}")
        if svc in netgen.EXTERNAL_HTTPS:
            blocked = connection_allowed(policies, src, EXTERNAL_HTTPS, 443)
            if blocked:
                report.fail("network", f"{overlay}: {svc} cannot reach {netgen.EXTERNAL_HTTPS[svc]}: {blocked}")
    # The edge's upstreams, from the nginx.conf it is given.
    edge = r.pods.get("edge")
    if edge:
        conf_name = next((v["configMap"]["name"] for v in edge.spec.get("volumes", []) if "configMap" in v), None)
        conf = ((r.get("ConfigMap", conf_name) or {}).get("data") or {}).get("nginx.conf", "")
        upstreams = re.findall(r"upstream (\w+) \{([^}]*)\}", conf)
        if not upstreams:
            report.fail("network", f"{overlay}: the edge's ConfigMap has no nginx.conf with upstreams")
        for upstream, body in upstreams:
            for server in re.findall(r"server ([^\s;]+)(?: [^;]*)?;", body):
                if server == "127.0.0.1:1":
                    report.fail("network", f"{overlay}: edge upstream {upstream} has no server (rendered as down)")
                    continue
                host, _, port = server.rpartition(":")
                target, why = r.resolve_service(host, int(port))
                if target is None:
                    report.fail("network", f"{overlay}: edge upstream {upstream} {server}: {why}")
                    continue
                blocked = connection_allowed(policies, edge, target[0], target[1])
                if blocked:
                    report.fail("network", f"{overlay}: the edge cannot reach upstream {upstream} at {server}: {blocked}")
        outside = Pod("client", "elsewhere", {}, {"containers": []})
        for port in netgen.EDGE_PORTS:
            ok, names = direction_allowed(policies, edge, outside, port, "TCP", "Ingress")
            if not ok:
                report.fail("network", f"{overlay}: apps cannot reach the edge on {port} (policies: {', '.join(names)})")
    # Nothing service-to-service beyond the contracts.
    allowed_pairs = set(declared)
    for svc in SERVICES:
        for other in SERVICES:
            if svc not in r.pods or other not in r.pods:
                continue
            port = netgen.ports()[other][0]
            if connection_allowed(policies, r.pods[svc], r.pods[other], port) is None and (svc, other) not in allowed_pairs:
                report.fail("network", f"{overlay}: the NetworkPolicies let {svc} call {other}:{port}, which no consumer "
                                       f"contract declares")
    # Pods nobody may reach that should be reachable: Postgres from the services (dev).
    if "postgres" in r.pods:
        for svc in SERVICES:
            if svc in r.pods and connection_allowed(policies, r.pods[svc], r.pods["postgres"], 5432):
                report.fail("network", f"{overlay}: {svc} cannot reach the postgres Pod on 5432")
    return needed


def check_monitoring(report, overlay, r):
    prom = r.pods.get("prometheus")
    if prom is None:
        report.fail("monitoring", f"{overlay}: no Prometheus workload (base/prometheus.yaml)")
        return
    c = prom.spec["containers"][0]
    image = c.get("image", "")
    if overlay == "prod" and (image.endswith(":dev") or image.startswith("rendezvous/")):
        report.fail("monitoring", f"{overlay}: prometheus: image {image}: prod sets the registry and tag (images: in its kustomization)")
    args = (c.get("command") or []) + (c.get("args") or [])
    config_file = next((a.split("=", 1)[1] for a in args if a.startswith("--config.file=")), None)
    files = {}  # path in the container -> contents, from ConfigMap volumes
    volumes = {v["name"]: v for v in prom.spec.get("volumes", [])}
    for m in c.get("volumeMounts", []):
        cm_name = (volumes.get(m["name"], {}).get("configMap") or {}).get("name")
        for key, text in ((r.get("ConfigMap", cm_name) or {}).get("data") or {}).items() if cm_name else []:
            files[m["mountPath"].rstrip("/") + "/" + key] = text
    if config_file not in files:
        report.fail("monitoring", f"{overlay}: prometheus: --config.file {config_file} is in none of its ConfigMaps")
        return
    config = yaml.safe_load(files[config_file])
    for rule_file in config.get("rule_files", []):
        if rule_file not in files:
            report.fail("monitoring", f"{overlay}: prometheus: rule file {rule_file} is in none of its ConfigMaps")
    if any(sd.get("role") == "pod" for job in config.get("scrape_configs", []) for sd in job.get("kubernetes_sd_configs", [])):
        account = prom.spec.get("serviceAccountName", "default")
        allowed = set()
        for binding in r.by_kind.get("RoleBinding", {}).values():
            if not any(s.get("kind") == "ServiceAccount" and s.get("name") == account for s in binding.get("subjects", [])):
                continue
            role = r.get(binding["roleRef"]["kind"], binding["roleRef"]["name"]) or {}
            for rule in role.get("rules", []):
                if "" in rule.get("apiGroups", []) and {"pods", "*"} & set(rule.get("resources", [])):
                    allowed |= set(rule.get("verbs", []))
        if not ({"list", "watch"} <= allowed or "*" in allowed):
            report.fail("monitoring", f"{overlay}: prometheus: ServiceAccount {account} may not list and watch pods "
                                      f"(kubernetes_sd_configs role pod); it may: {sorted(allowed) or 'nothing'}")
        if prom.spec.get("automountServiceAccountToken") is False:
            report.fail("monitoring", f"{overlay}: prometheus: no service account token mounted for kubernetes_sd_configs")
        blocked = connection_allowed(r.policies, prom, API_SERVER, 6443)
        if blocked:
            report.fail("monitoring", f"{overlay}: prometheus cannot reach the API server (6443): {blocked}")
    # Every service and the edge scraped, on a port its Pod declares and Prometheus may reach.
    for name in SERVICES + ["edge"]:
        pod = r.pods.get(name)
        if pod is None:
            continue
        annotations = (r.get("Deployment", name) or r.get("StatefulSet", name))["spec"]["template"]["metadata"].get("annotations", {})
        if annotations.get("prometheus.io/scrape") != "true":
            report.fail("monitoring", f"{overlay}: {name} is not annotated prometheus.io/scrape: \"true\"")
            continue
        port = int(annotations.get("prometheus.io/port", 0))
        declared = {p["containerPort"] for ct in pod.spec["containers"] for p in ct.get("ports", [])}
        if port not in declared:
            report.fail("monitoring", f"{overlay}: {name}: prometheus.io/port {port} is not a port its container declares")
        blocked = connection_allowed(r.policies, prom, pod, port)
        if blocked:
            report.fail("monitoring", f"{overlay}: prometheus cannot scrape {name} on {port}: {blocked}")
    # The admin ports: Prometheus, and the edge for media's signed downloads; nobody else, not even
    # a Pod labelled prometheus in another namespace.
    admin_ports = netgen.ports()
    impostor = Pod("prometheus", "elsewhere", dict(prom.labels), {"containers": []})
    for svc in SERVICES:
        pod = r.pods.get(svc)
        if pod is None:
            continue
        admin = admin_ports[svc][1]
        for other in list(r.pods.values()) + [impostor]:
            if other is pod or other is prom or (svc == "media" and other.name == "edge"):
                continue
            if connection_allowed(r.policies, other, pod, admin) is None:
                where = "" if other is not impostor else " (a Pod labelled prometheus in another namespace)"
                report.fail("monitoring", f"{overlay}: {other.name}{where} can reach {svc}'s admin port {admin}; "
                                          f"only Prometheus may")


def main(argv):
    verbose = "-v" in argv[1:]
    started = time.monotonic()
    report = Report(verbose)
    try:
        import kubernetes_validate  # noqa: F401
    except ImportError:
        print("check.py: kubernetes-validate is not installed: pip install kubernetes-validate", file=sys.stderr)
        return 2
    version = subprocess.run(["kubectl", "version", "--client", "-o", "json"], capture_output=True, text=True)
    if version.returncode != 0:
        print("check.py: kubectl is not installed", file=sys.stderr)
        return 2
    # The overlays use kustomize v4's `labels`, `replicas` and `patches`: kubectl 1.21 and later.
    kustomize = json.loads(version.stdout).get("kustomizeVersion", "")
    if not re.match(r"v([4-9]|\d\d)\.", kustomize):
        print(f"check.py: kubectl's kustomize is {kustomize or 'older than v4'} (kubectl "
              f"{json.loads(version.stdout).get('clientVersion', {}).get('gitVersion', '?')}); the overlays need "
              "kustomize v4 or later, in kubectl 1.21 and later", file=sys.stderr)
        return 2

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        renders = {o: pool.submit(render, o) for o in OVERLAYS}
        for path in sync_config.stale():
            report.fail("copies", f"compose/{path} differs from its source: run python3 compose/k8s/sync_config.py")
        try:
            if netgen.render() != open(netgen.OUTPUT).read():
                report.fail("copies", "base/networkpolicies.yaml is stale: run python3 compose/k8s/gen_network_policies.py")
        except (netgen.GenerationError, OSError, ValueError, KeyError) as error:
            report.fail("copies", f"gen_network_policies.py: {error}")
        try:
            declared = {(svc, provider) for _, _, provider, runs_in in netgen.contracts() for svc in runs_in}
        except (netgen.GenerationError, OSError, ValueError, KeyError) as error:
            report.fail("network", f"contracts: {error}")
            declared = set()
        for overlay, replicas in OVERLAYS.items():
            docs, error = renders[overlay].result()
            if docs is None:
                report.fail("render", f"kubectl kustomize compose/k8s/overlays/{overlay}: {error}")
                continue
            report.info(f"{overlay}: {len(docs)} documents")
            validate_schemas(report, overlay, docs)
            r = Rendered(docs)
            check_workloads(report, overlay, r, replicas)
            check_images(report, overlay, r)
            check_network(report, overlay, r, declared)
            check_monitoring(report, overlay, r)

    for line in report.warnings:
        print(line)
    for line in report.failures:
        print(line)
    took = time.monotonic() - started
    if report.failures:
        print(f"check.py: {len(report.failures)} failures ({took:.1f} s)")
        return 1
    print(f"check.py: ok: both overlays render, validate against Kubernetes {K8S_VERSION}, the NetworkPolicies "
          f"allow exactly the contracts' calls, and Prometheus scrapes every service and the edge, alone on their "
          f"admin ports ({len(report.warnings)} warnings, {took:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
