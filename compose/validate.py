"""Checks compose/ without a container engine (run by compose/validate.sh; see there)."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import yaml

from ports import free_port

COMPOSE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(COMPOSE)
BIN = os.environ.get("RV_BIN_DIR", os.path.join(REPO, ".build/debug"))
failures = []
notes = []


def fail(message):
    failures.append(message)
    print("FAIL " + message)


def ok(message):
    print("ok   " + message)


# ---------------------------------------------------------------- compose file and env files

def read_env_file(path):
    values = {}
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if not re.match(r"^[A-Z_][A-Z0-9_]*=", line):
                fail(f"{os.path.relpath(path, REPO)}:{number}: not NAME=value")
                continue
            name, value = line.split("=", 1)
            values[name] = value
    return values


def interpolate(text, variables, where):
    """Compose's ${VAR}, ${VAR:-default}, ${VAR:?message} and $$."""
    def replace(match):
        if match.group(0) == "$$":
            return "$"
        name, operator, argument = match.group(1), match.group(2), match.group(3) or ""
        value = variables.get(name, "")
        if operator == ":?" and not value:
            fail(f"{where}: {name} is required ({argument}) and .env.example does not set it")
        if operator == ":-" and not value:
            return argument
        return value
    return re.sub(r"\$\$|\$\{([A-Z_][A-Z0-9_]*)(?:(:[-?])([^}]*))?\}", replace, str(text))


def dockerfile_stages(path):
    stages, current = {}, None
    with open(path) as handle:
        text = handle.read().replace("\\\n", " ")
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            parts = rest.split()
            name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else f"stage{len(stages)}"
            current = {"name": name, "base": parts[0], "steps": []}
            stages[name] = current
        elif current is not None:
            current["steps"].append((keyword, rest.strip()))
    return stages


def executable_products():
    with open(os.path.join(REPO, "Package.swift")) as handle:
        return set(re.findall(r'\.executable\(name:\s*"([^"]+)"', handle.read()))


def check_compose():
    with open(os.path.join(COMPOSE, "docker-compose.yml")) as handle:
        compose = yaml.safe_load(handle)
    ok("docker-compose.yml parses")
    example = read_env_file(os.path.join(COMPOSE, ".env.example"))
    services = compose["services"]
    volumes = set((compose.get("volumes") or {}).keys())
    products = executable_products()
    stages_by_file = {}
    for name, service in services.items():
        where = f"services.{name}"
        for key, value in (service.get("environment") or {}).items():
            interpolate(value, example, f"{where}.environment.{key}")
        build = service.get("build")
        if build:
            dockerfile = os.path.normpath(os.path.join(COMPOSE, build.get("context", "."), build.get("dockerfile", "Dockerfile")))
            if not os.path.exists(dockerfile):
                fail(f"{where}: Dockerfile {dockerfile} missing")
                continue
            stages = stages_by_file.setdefault(dockerfile, dockerfile_stages(dockerfile))
            target = build.get("target")
            if target and target not in stages:
                fail(f"{where}: target {target} is not a stage of {os.path.relpath(dockerfile, REPO)}")
            declared = {step[1].split("=")[0] for stage in stages.values() for step in stage["steps"] if step[0] == "ARG"}
            for arg, value in (build.get("args") or {}).items():
                if arg not in declared:
                    fail(f"{where}: build arg {arg} is not an ARG of the Dockerfile")
                if arg == "PRODUCT" and value not in products:
                    fail(f"{where}: PRODUCT {value} is not an executable product of Package.swift")
        env = {}
        for env_file in service.get("env_file") or []:
            path = os.path.join(COMPOSE, env_file)
            if not os.path.exists(path):
                fail(f"{where}: env_file {env_file} missing")
            else:
                env.update(read_env_file(path))
        for dependency in service.get("depends_on") or {}:
            if dependency not in services:
                fail(f"{where}: depends_on {dependency}, which is not a service")
        for volume in service.get("volumes") or []:
            source = interpolate(str(volume), example, f"{where}.volumes").split(":")[0]
            if source.startswith("."):
                if source != "./tls" and not os.path.exists(os.path.join(COMPOSE, source)):
                    fail(f"{where}: volume source {source} missing")
            elif source not in volumes:
                fail(f"{where}: named volume {source} not declared")
        port_arg = (build or {}).get("args", {}).get("PORT")
        if port_arg is not None and str(port_arg) != env.get(f"RV_{name.upper()}_PORT"):
            fail(f"{where}: build arg PORT={port_arg} is not RV_{name.upper()}_PORT={env.get(f'RV_{name.upper()}_PORT')} of its env file")
        health = (service.get("healthcheck") or {}).get("test")
        if build and build.get("target") in ("service", "edge") and health:
            fail(f"{where}: a compose healthcheck replaces the image's HEALTHCHECK (`rendezvous health`), and "
                 "podman-compose runs it through /bin/sh, which the image does not have")
        print(f"ok   services.{name}: build, env files, healthcheck, depends_on and volumes consistent")
    return compose, example


# ---------------------------------------------------------------- the edge's configuration

def check_edge_config():
    rendered = subprocess.run(["bash", os.path.join(COMPOSE, "nginx/render.sh"), "--compose"],
                              capture_output=True, text=True, check=True).stdout
    with open(os.path.join(COMPOSE, "nginx/rendezvous.conf")) as handle:
        if handle.read() != rendered:
            fail("nginx/rendezvous.conf is not what `bash compose/nginx/render.sh --compose` renders; render it again")
        else:
            ok("nginx/rendezvous.conf is the template rendered for compose")


# ---------------------------------------------------------------- entrypoints with compose's env

def check_entrypoints(compose, example, database):
    """Starts each service executable with its compose environment (env files, then
    `environment:` interpolated from .env.example), changed only where one host differs from a
    compose network: names become 127.0.0.1, ports free ones, Postgres the local test cluster,
    the media volume a temporary folder. Ready means `rendezvous health` (or, without the CLI
    built, the admin /readyz) answers. They run on the scratch database the init script made, as on
    a fresh deployment's (so .env.example's key-encryption key seals keys nobody else reads); then the edge's compose config routes a health check."""
    pg_port = os.environ.get("RV_PG_PORT", "7432")
    variables = dict(example)
    for service in ("identity", "discovery", "messaging", "production", "media"):
        variables[f"RV_PG_PASSWORD_{service.upper()}"] = os.environ.get(f"RV_PG_PASSWORD_{service.upper()}", f"rv_{service}_local")
    names = [n for n, s in compose["services"].items() if (s.get("build") or {}).get("args", {}).get("PRODUCT")]
    ports, environments = {}, {}
    for name in names:
        service = compose["services"][name]
        env = {}
        for env_file in service.get("env_file") or []:
            env.update(read_env_file(os.path.join(COMPOSE, env_file)))
        for key, value in (service.get("environment") or {}).items():
            env[key] = interpolate(value, variables, f"services.{name}")
        environments[name] = env
        ports[name] = (free_port(), free_port())
    compose_ports = {}
    for name, env in environments.items():
        compose_ports[name] = env.get(f"RV_{name.upper()}_PORT")
    storage = tempfile.mkdtemp(prefix="rv-media-volume-")

    def localize(value):
        value = value.replace("@postgres:5432/rendezvous", f"@127.0.0.1:{pg_port}/{database}")
        for other, port in compose_ports.items():
            value = value.replace(f"{other}:{port}", f"127.0.0.1:{ports[other][0]}")
        return value.replace("/var/lib/rendezvous/media", storage)

    processes, logs = {}, {}
    health_cli = os.path.join(BIN, "rendezvous")
    try:
        for name in names:
            env = {k: localize(v) for k, v in environments[name].items()}
            env[f"RV_{name.upper()}_HOST"] = "127.0.0.1"
            env[f"RV_{name.upper()}_PORT"] = str(ports[name][0])
            env[f"RV_{name.upper()}_ADMIN_PORT"] = str(ports[name][1])
            product = compose["services"][name]["build"]["args"]["PRODUCT"]
            logs[name] = tempfile.TemporaryFile()
            base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
            arguments = [os.path.join(BIN, product)]
            if product == "interop-server":
                arguments += ["--port", str(ports[name][0])]
            processes[name] = subprocess.Popen(arguments, env={**base, **env}, stdout=logs[name], stderr=subprocess.STDOUT,
                                               stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        pending = set(names)
        while pending and time.monotonic() < deadline:
            for name in sorted(pending):
                if processes[name].poll() is not None:
                    pending.discard(name)
                    logs[name].seek(0)
                    fail(f"{name}: exited with {processes[name].returncode} under compose's environment:\n"
                         + logs[name].read().decode(errors="replace")[-1500:])
                elif ready(name, ports[name], health_cli):
                    pending.discard(name)
                    ok(f"{name}: started with compose's environment and is ready "
                       f"({'rendezvous health' if os.path.exists(health_cli) else '/readyz'})")
            time.sleep(0.2)
        for name in sorted(pending):
            logs[name].seek(0)
            fail(f"{name}: not ready within 60 s:\n" + logs[name].read().decode(errors="replace")[-1500:])
        if not os.path.exists(health_cli):
            notes.append("the rendezvous CLI is not built here: readiness was checked on /readyz, not with `rendezvous health`")
        check_edge_routes(ports)
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(storage, ignore_errors=True)


def ready(name, ports, health_cli):
    if os.path.exists(health_cli):
        return subprocess.run([health_cli, "health", "--address", f"127.0.0.1:{ports[0]}"], capture_output=True,
                              timeout=10).returncode == 0
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ports[1]}/readyz", timeout=2) as response:
            return response.status == 200
    except Exception:
        return False


def check_edge_routes(ports):
    """The compose config with its names pointed at the running executables and a fresh
    certificate, run as the edge image runs it (rendezvous-edge with its metrics listener): nginx
    takes it, a gRPC health check through it reaches interop, and rendezvous-edge counts it."""
    with open(os.path.join(COMPOSE, "nginx/rendezvous.conf")) as handle:
        config = handle.read()
    work = tempfile.mkdtemp(prefix="rv-edge-")
    try:
        ca = subprocess.run(["bash", os.path.join(COMPOSE, "nginx/make-cert.sh"), os.path.join(work, "tls")],
                            capture_output=True, text=True, check=True).stdout.strip()
        edge_port = free_port()
        config = config.replace("/etc/rendezvous/tls", os.path.join(work, "tls"))
        config = config.replace("listen 0.0.0.0:8443", f"listen 127.0.0.1:{edge_port}")
        config = config.replace("listen 0.0.0.0:8080", f"listen 127.0.0.1:{free_port()}")
        config = config.replace("listen 127.0.0.1:8081", f"listen 127.0.0.1:{free_port()}")
        metrics_port = free_port()
        config = config.replace("syslog:server=127.0.0.1:8082,", f"syslog:server=127.0.0.1:{metrics_port},")
        for name, (port, admin) in ports.items():
            config = re.sub(rf"server {name}:\d+([^;]*);", rf"server 127.0.0.1:{port}\1;", config)
        config = re.sub(r"server media:7205;", f"server 127.0.0.1:{ports['media'][1]};", config)
        os.makedirs(os.path.join(work, "run"))
        with open(os.path.join(work, "run/edge.conf"), "w") as handle:
            handle.write(config)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        edge = subprocess.Popen([os.path.join(BIN, "rendezvous-edge"), "--config", os.path.join(work, "run/edge.conf"),
                                 "--prefix", os.path.join(work, "run") + "/", "--nginx", nginx,
                                 "--metrics", f"127.0.0.1:{metrics_port}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            deadline = time.monotonic() + 10
            answer = ""
            while time.monotonic() < deadline:
                result = subprocess.run(["curl", "-sS", "--http2", "--cacert", ca, "-X", "POST", "-H", "content-type: application/grpc",
                                         "-H", "te: trailers", "--data-binary", "@-", "-o", "-", "-w", "%{http_code}",
                                         f"https://localhost:{edge_port}/grpc.health.v1.Health/Check"],
                                        input=b"\0\0\0\0\0", capture_output=True, timeout=10)
                answer = result.stdout
                if answer.endswith(b"200"):
                    break
                time.sleep(0.1)
            # HealthCheckResponse{status: SERVING}: one framed message 08 01.
            if answer == b"\0\0\0\0\x02\x08\x01200":
                ok("edge: the compose config, pointed at the executables, routes a gRPC health check over TLS to SERVING")
            else:
                fail(f"edge: health check through the compose config answered {answer!r}")
            series = 'edge_responses_total{route="interop",method="/grpc.health.v1.Health/Check",code="OK"}'
            scrape, counted_by = "", time.monotonic() + 5
            while time.monotonic() < counted_by and series not in scrape:
                with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as response:
                    scrape = response.read().decode()
                time.sleep(0.05)
            if series in scrape:
                ok("edge: rendezvous-edge counted the health check (" + series + ")")
            else:
                fail(f"edge: rendezvous-edge's /metrics has no {series}: {scrape!r}")
        finally:
            edge.terminate()
            edge.wait(timeout=10)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------- the init script of Postgres

def psql(*arguments):
    return subprocess.run(["bash", os.path.join(COMPOSE, "local/db.sh"), "psql", *arguments], capture_output=True, text=True)


def check_postgres_init(database):
    """postgres/10-service-roles.sh as the postgis image runs it, on a scratch database of the
    local test cluster with the passwords db.sh gives (so the cluster's roles are unchanged).
    The services then start on that database as on a fresh deployment's."""
    created = psql("-d", "postgres", "-c", f'CREATE DATABASE "{database}"')
    if created.returncode != 0:
        fail(f"postgres init: could not create a scratch database: {created.stderr.strip()}")
        return False
    env = dict(os.environ, POSTGRES_DB=database, POSTGRES_USER="rv_admin",
               RV_SERVICE_ROLES_LIB=os.path.join(COMPOSE, "postgres/service-roles.sh"),
               PGHOST="127.0.0.1", PGPORT=os.environ.get("RV_PG_PORT", "7432"),
               PGPASSWORD=os.environ.get("RV_PG_ADMIN_PASSWORD", "rv_admin_local"))
    for service in ("identity", "discovery", "messaging", "production", "media", "testsvc"):
        env[f"RV_PG_PASSWORD_{service.upper()}"] = os.environ.get(f"RV_PG_PASSWORD_{service.upper()}", f"rv_{service}_local")
    result = subprocess.run(["bash", os.path.join(COMPOSE, "postgres/10-service-roles.sh")], env=env,
                            capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"postgres init: 10-service-roles.sh failed: {result.stderr.strip()}")
        return False
    owners = psql("-d", database, "-tAc", "SELECT nspname || '=' || nspowner::regrole FROM pg_namespace "
                  "WHERE nspname IN ('identity','discovery','messaging','production','media') ORDER BY 1").stdout.split()
    expected = [f"{s}=rv_{s}" for s in sorted(("identity", "discovery", "messaging", "production", "media"))]
    if owners == expected:
        ok("postgres init: 10-service-roles.sh makes each service's schema, owned by its role")
        return True
    fail(f"postgres init: schemas {owners}, expected {expected}")
    return False


def check_dockerignore():
    ignore = os.path.join(COMPOSE, "Dockerfile.dockerignore")
    patterns = set(open(ignore).read().split()) if os.path.exists(ignore) else set()
    if {".build", ".data", ".git", "compose/.env", "compose/tls"} <= patterns:
        ok("Dockerfile.dockerignore keeps builds, clusters, secrets and .git out of the context")
    else:
        fail("Dockerfile.dockerignore must exclude .build, .data, .git, compose/.env and compose/tls")


def main():
    started = time.monotonic()
    run_checks()
    for note in notes:
        print("note " + note)
    print(f"validate: {len(failures)} failure(s) in {time.monotonic() - started:.1f} s")
    print("not run here: the images and containers themselves (compose/images.sh builds them, ContainerJourneyTests runs "
          "them with podman-compose)")
    sys.exit(1 if failures else 0)


def run_checks():
    compose, example = check_compose()
    check_edge_config()
    check_dockerignore()
    database = f"rv_validate_{os.getpid()}"
    try:
        if check_postgres_init(database):
            check_entrypoints(compose, example, database)
    finally:
        psql("-d", "postgres", "-c", f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


if __name__ == "__main__":
    main()
