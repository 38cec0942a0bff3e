#!/usr/bin/env python3
"""play.sh's helpers: turns the rendered dev overlay into what Debian 12's podman 4.3 `kube play`
takes, and calls the services through the edge.

  play_support.py split RENDERED.yaml OUTDIR TLSDIR
      OUTDIR/<n>-<workload>.yaml   one file per workload, in start order (postgres, interop, the
                                   five services, edge): its ConfigMaps and a Deployment, for `podman kube play --network NET:alias=<Service>`
      OUTDIR/secrets/<name>.json   each Secret's data as podman 4.3 reads a kube Secret (a JSON
                                   object of base64 values), for `podman secret create`
      OUTDIR/volumes               "<name> <uid> <gid>" per podman volume the files use: play.sh
                                   makes each first, owned by the Pod's user ("- -": kube play makes
                                   it, a ConfigMap's), and removes them all after kube down
      OUTDIR/workloads             "<file> <workload> <alias> <port>" per line, in start order
  play_support.py resolve NAME DNS-SERVER
      NAME's IPv4 address from the podman network's DNS server (aardvark-dns), as a Pod resolves it
  play_support.py probe-edge HOST:PORT CA.pem
      Through the edge over TLS (as the apps call it): grpc.health.v1 (routed to interop), identity's
      ListTiers, an anonymous sign-in, then with its access token one call to each of discovery,
      messaging, production and media, and a signed-download URL (media's admin port). Each call
      must reach its service (no edge refusal) and each authenticated one must get past the
      service's token check (which needs identity's keys).

What the split changes, and why (podman 4.3.1):
  - Service, HorizontalPodAutoscaler, PodDisruptionBudget, NetworkPolicy, Namespace and the RBAC
    objects are dropped: kube play ignores or refuses them. Service names come from network aliases
    instead (play.sh). Prometheus is not played: it finds its targets through the Kubernetes API,
    which podman has not.
  - The StatefulSet becomes a Deployment and its volumeClaimTemplates PersistentVolumeClaims.
  - Container ports are removed: podman 4.3 publishes every containerPort on the host, which would
    take the host's 7101... from `make run`. Pods reach each other on the podman network.
  - Secret volumes become hostPath folders (4.3 crashes on secret volumes); the edge's TLS
    Secret is the certificate play.sh makes.
  - emptyDir and PVC volumes get names unique to this run (podman names volumes after them), and
    play.sh makes them beforehand owned by the Pod's runAsUser and fsGroup: a cluster makes an
    emptyDir writable for everyone and applies fsGroup to volumes, podman 4.3 does neither.
  - Images get podman's localhost/ prefix, where locally built images live.
  - Probes and the preStop sleep stay: podman ignores what it cannot run (gRPC probes, sleep).
"""
import base64
import copy
import json
import os
import sys

import yaml

ORDER = ["postgres", "interop", "identity", "discovery", "messaging", "production", "media", "edge"]
PREFIX = "rvk8s"
DROP = {"Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "Namespace",
        "ServiceAccount", "Role", "RoleBinding"}


def split(rendered, outdir, tlsdir):
    docs = [d for d in yaml.safe_load_all(open(rendered)) if d]
    kinds = {}
    for d in docs:
        kinds.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
    os.makedirs(os.path.join(outdir, "secrets"), exist_ok=True)
    for name, secret in kinds.get("Secret", {}).items():
        with open(os.path.join(outdir, "secrets", f"{name}.json"), "w") as f:
            json.dump(secret.get("data", {}), f)
    unknown = set(kinds) - DROP - {"Secret", "ConfigMap", "PersistentVolumeClaim", "Deployment", "StatefulSet"}
    if unknown:
        raise SystemExit(f"play_support.py: kinds kube play cannot take and play.sh does not handle: {sorted(unknown)}")
    workloads = dict(kinds.get("Deployment", {}))
    workloads.update(kinds.get("StatefulSet", {}))
    volumes, lines = [], []
    services = kinds.get("Service", {})
    for index, name in enumerate(ORDER):
        if name not in workloads:
            raise SystemExit(f"play_support.py: the dev overlay has no workload {name}")
        w = copy.deepcopy(workloads[name])
        out = []
        spec = w["spec"]["template"]["spec"]
        if w["kind"] == "StatefulSet":
            for claim in w["spec"].pop("volumeClaimTemplates", []):
                pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                       "metadata": {"name": f"{claim['metadata']['name']}-{name}-0"}, "spec": claim["spec"]}
                kinds.setdefault("PersistentVolumeClaim", {})[pvc["metadata"]["name"]] = pvc
                spec.setdefault("volumes", []).append(
                    {"name": claim["metadata"]["name"], "persistentVolumeClaim": {"claimName": pvc["metadata"]["name"]}})
            w = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": w["metadata"],
                 "spec": {"replicas": 1, "selector": w["spec"]["selector"], "template": w["spec"]["template"]}}
            spec = w["spec"]["template"]["spec"]
        w["spec"].pop("strategy", None)
        renamed = {}
        psc = spec.get("securityContext", {})
        owner = f"{psc.get('runAsUser', 0)} {psc.get('fsGroup', psc.get('runAsGroup', 0))}"
        for v in spec.get("volumes", []):
            old = v["name"]
            if "emptyDir" in v:
                v["name"] = f"{PREFIX}-{name}-{old}"
                v["emptyDir"] = {}
                volumes.append(f"{v['name']} {owner}")
            elif "persistentVolumeClaim" in v:
                claim = v["persistentVolumeClaim"]["claimName"]
                if claim not in kinds.get("PersistentVolumeClaim", {}):
                    raise SystemExit(f"play_support.py: {name}: no PersistentVolumeClaim {claim}")
                # No PVC document: play.sh makes the volume (owned by the Pod's user) and kube
                # play uses a volume of the claim's name that exists.
                v["name"] = f"{PREFIX}-{claim}"
                v["persistentVolumeClaim"]["claimName"] = v["name"]
                volumes.append(f"{v['name']} {owner}")
            elif "configMap" in v:
                cm = kinds["ConfigMap"][v["configMap"]["name"]]
                if cm not in out:
                    out.append(cm)
                volumes.append(f"{cm['metadata']['name']} - -")
            elif "secret" in v:
                if v["secret"]["secretName"] != "rendezvous-edge-tls":
                    raise SystemExit(f"play_support.py: {name}: secret volume {v['secret']['secretName']} not handled")
                v.pop("secret")
                v["hostPath"] = {"path": os.path.abspath(tlsdir), "type": "Directory"}
            renamed[old] = v["name"]
        for c in spec["containers"]:
            c.pop("ports", None)
            if c["image"].startswith("rendezvous/"):
                c["image"] = "localhost/" + c["image"]
            for m in c.get("volumeMounts", []):
                m["name"] = renamed.get(m["name"], m["name"])
            for source in c.get("envFrom", []):
                if "configMapRef" in source:
                    cm = kinds["ConfigMap"][source["configMapRef"]["name"]]
                    if cm not in out:
                        out.append(cm)
        out.append(w)
        path = os.path.join(outdir, f"{index}-{name}.yaml")
        with open(path, "w") as f:
            yaml.safe_dump_all(out, f, sort_keys=False)
        svc = services.get(name)
        port = svc["spec"]["ports"][0]["port"] if svc else 0
        lines.append(f"{path} {name} {svc['metadata']['name'] if svc else name} {port}")
    with open(os.path.join(outdir, "volumes"), "w") as f:
        f.write("\n".join(dict.fromkeys(volumes)) + "\n")
    with open(os.path.join(outdir, "workloads"), "w") as f:
        f.write("\n".join(lines) + "\n")


def resolve(name, server):
    """The first IPv4 address (A record) `server` (the network's DNS, aardvark-dns) gives `name`."""
    import random
    import socket
    import struct
    ident = random.randrange(65536)
    query = struct.pack(">HHHHHH", ident, 0x0100, 1, 0, 0, 0)
    query += b"".join(bytes([len(part)]) + part.encode() for part in name.split(".")) + b"\0"
    query += struct.pack(">HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(3)
        sock.sendto(query, (server, 53))
        reply, _ = sock.recvfrom(4096)
    rid, flags, qd, an = struct.unpack(">HHHH", reply[:8])
    if rid != ident or flags & 0xF or an == 0:
        return None
    i = 12
    for _ in range(qd):  # skip the question
        while reply[i]:
            i += reply[i] + 1
        i += 5
    for _ in range(an):
        if reply[i] & 0xC0 == 0xC0:
            i += 2
        else:
            while reply[i]:
                i += reply[i] + 1
            i += 1
        rtype, _, _, length = struct.unpack(">HHIH", reply[i:i + 10])
        i += 10
        if rtype == 1 and length == 4:
            return socket.inet_ntoa(reply[i:i + 4])
        i += length
    return None


def field(number, text):
    data = text.encode()
    return bytes([number << 3 | 2, len(data)]) + data


def read_string(message, number):
    """The first length-delimited field `number` of a protobuf message (enough for AuthSession)."""
    i = 0
    while i < len(message):
        key, i = varint(message, i)
        wire = key & 7
        if wire == 0:
            _, i = varint(message, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            length, i = varint(message, i)
            if key >> 3 == number:
                return message[i:i + length].decode()
            i += length
        else:
            raise ValueError(f"wire type {wire}")
    return None


def varint(data, i):
    shift = value = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def probe_edge(address, ca):
    import grpc
    with open(ca, "rb") as f:
        creds = grpc.ssl_channel_credentials(root_certificates=f.read())
    channel = grpc.secure_channel(address, creds, options=[("grpc.ssl_target_name_override", "edge")])
    grpc.channel_ready_future(channel).result(timeout=15)
    ident = lambda b: b  # noqa: E731
    failures = 0

    def call(path, request, metadata=None, want=None, refuse=()):
        nonlocal failures
        method = channel.unary_unary(path, request_serializer=ident, response_deserializer=ident)
        try:
            response = method(request, metadata=metadata, timeout=10)
            code, detail = grpc.StatusCode.OK, ""
        except grpc.RpcError as error:
            response, code, detail = None, error.code(), error.details()
        edge_refusal = code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNIMPLEMENTED,
                                grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.DEADLINE_EXCEEDED)
        ok = (code == want) if want else not edge_refusal and code not in refuse
        print(f"  {'ok  ' if ok else 'FAIL'} {path}: {code.name}{(' (' + detail + ')') if detail else ''}")
        if not ok:
            failures += 1
        return response

    health = call("/grpc.health.v1.Health/Check", b"", want=grpc.StatusCode.OK)
    if health is not None and health != b"\x08\x01":
        print(f"  FAIL grpc.health.v1 through the edge: status bytes {health!r}, not SERVING")
        failures += 1
    call("/rendezvous.identity.v1.Membership/ListTiers", field(1, "swivo"), want=grpc.StatusCode.OK)
    tokens = {}
    for app in ("swivo", "unseen"):  # production's Points are The Unseen's: other apps' tokens are WRONG_APP
        session = call("/rendezvous.identity.v1.Identity/SignInAnonymously",
                       field(1, app) + field(2, "play.sh"), want=grpc.StatusCode.OK)
        tokens[app] = read_string(session, 2) if session else None
        if not tokens[app]:
            print(f"  FAIL no access token from SignInAnonymously ({app})")
            return 1
    # With a token: each service verifies it with identity's keys (fetched over the network), so
    # anything but UNAUTHENTICATED (and the edge's own refusals) shows the service and its path
    # to identity work. Without one, UNAUTHENTICATED shows the call reached the service.
    for path, app in [("/rendezvous.discovery.v1.Discovery/GetFeed", "swivo"),
                      ("/rendezvous.messaging.v1.Messaging/GetUnreadCount", "swivo"),
                      ("/rendezvous.production.v1.Points/GetBalance", "unseen"),
                      ("/rendezvous.media.v1.Media/GetBlob", "swivo")]:
        call(path, b"", want=grpc.StatusCode.UNAUTHENTICATED)
        call(path, b"", metadata=[("authorization", f"Bearer {tokens[app]}")],
             refuse=(grpc.StatusCode.UNAUTHENTICATED,))
    # Signed downloads: the edge proxies /media/v1/blobs/ to media's admin listener. A made-up
    # signature must be refused by media (4xx), not fail at the edge (502/503/504).
    import http.client
    import ssl
    host, _, port = address.rpartition(":")
    context = ssl.create_default_context(cafile=ca)
    context.check_hostname = False
    conn = http.client.HTTPSConnection(host, int(port), context=context, timeout=10)
    conn.request("GET", "/media/v1/blobs/00000000-0000-0000-0000-000000000000?expires=1&signature=00",
                 headers={"Host": "edge"})
    reply = conn.getresponse()
    body = reply.read()[:60]
    ok = 400 <= reply.status < 500
    print(f"  {'ok  ' if ok else 'FAIL'} GET /media/v1/blobs/... (media's admin port): HTTP {reply.status} {body!r}")
    failures += 0 if ok else 1
    return 1 if failures else 0


def main(argv):
    if len(argv) == 5 and argv[1] == "split":
        split(argv[2], argv[3], argv[4])
        return 0
    if len(argv) == 4 and argv[1] == "resolve":
        address = resolve(argv[2], argv[3])
        if not address:
            print(f"play_support.py: {argv[2]} does not resolve at {argv[3]}", file=sys.stderr)
            return 1
        print(address)
        return 0
    if len(argv) == 4 and argv[1] == "probe-edge":
        return probe_edge(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
