"""Checks compose/ without a container engine (run by compose/validate.sh; see there)."""
import json
import os
import re
import shlex
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
FULL = "--build" in sys.argv
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
            source = str(volume).split(":")[0]
            if source.startswith("."):
                if source != "./tls" and not os.path.exists(os.path.join(COMPOSE, source)):
                    fail(f"{where}: volume source {source} missing")
            elif source not in volumes:
                fail(f"{where}: named volume {source} not declared")
        health = (service.get("healthcheck") or {}).get("test")
        if build and name != "edge":
            if not health or health[:3] != ["CMD", "/usr/local/bin/rendezvous", "health"]:
                fail(f"{where}: healthcheck is not `rendezvous health`")
            else:
                address = health[health.index("--address") + 1]
                port_var = f"RV_{name.upper()}_PORT"
                if address != f"127.0.0.1:{env.get(port_var)}":
                    fail(f"{where}: healthcheck address {address} is not the port {port_var}={env.get(port_var)} of its env file")
        elif build and not health:
            fail(f"{where}: no healthcheck")
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


# ---------------------------------------------------------------- the Dockerfile's steps

_known_packages = {}


def missing_packages(packages):
    """The names apt-cache does not know (one call for all, then one per name only if needed)."""
    unknown = [p for p in packages if p not in _known_packages]
    if unknown:
        every = subprocess.run(["apt-cache", "show", *unknown], capture_output=True).returncode == 0
        for name in unknown:
            _known_packages[name] = every or subprocess.run(["apt-cache", "show", name], capture_output=True).returncode == 0
    return [p for p in packages if not _known_packages[p]]


_closures = {}


def dependency_closure(packages):
    key = tuple(sorted(packages))
    if key not in _closures:
        depends = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
                                  "--no-breaks", "--no-replaces", "--no-enhances", *key], capture_output=True, text=True).stdout
        _closures[key] = set(key) | {line.strip().split(":")[-1].strip() for line in depends.splitlines()}
    return _closures[key]


def apt_packages(command):
    packages = []
    for segment in re.split(r"&&|;", command):
        words = shlex.split(segment)
        if len(words) >= 2 and words[0] == "apt-get" and "install" in words:
            packages += [word for word in words[words.index("install") + 1:] if not word.startswith("-")]
    return packages


_clean_copies = {}


def clean_copy(source):
    if source not in _clean_copies:
        folder = tempfile.mkdtemp(prefix="rv-clean-")
        shutil.copytree(os.path.join(REPO, source), os.path.join(folder, "tree"), ignore=shutil.ignore_patterns(".build*"))
        _clean_copies[source] = os.path.join(folder, "tree")
    return _clean_copies[source]


def run_stage_steps(stage, root, product):
    """Runs a stage's RUN lines as a script in `root` (the image's / mapped there): apt-get is
    checked against apt-cache, swift build is replaced by the already built executable unless
    --build, every other command runs as written."""
    workdir = root
    for keyword, rest in stage["steps"]:
        if keyword == "WORKDIR":
            workdir = os.path.join(root, rest.lstrip("/"))
            os.makedirs(workdir, exist_ok=True)
        elif keyword == "COPY" and "--from" not in rest:
            *sources, destination = shlex.split(rest)
            for source in sources:
                path = os.path.join(REPO, source)
                if not os.path.exists(path):
                    fail(f"{stage['name']}: COPY {source}: not in the repository")
                    continue
                target = os.path.join(workdir, destination.rstrip("/"), os.path.basename(source)) if destination.endswith("/") \
                    else os.path.join(workdir, destination)
                if os.path.isdir(path):
                    # A clean copy made once per run, hard-linked into each product's directory.
                    subprocess.run(["cp", "-al", clean_copy(source), target], check=True)
                else:
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copy(path, target)
        elif keyword == "RUN":
            packages = apt_packages(rest)
            missing = missing_packages(packages)
            if missing:
                fail(f"{stage['name']}: apt packages not in the archive: {missing}")
            elif packages:
                ok(f"{stage['name']}: apt packages exist ({' '.join(packages)})")
            script = []
            for segment in rest.split("&&"):
                segment = segment.strip()
                if segment.startswith("apt-get") or segment.startswith("rm -rf /var/lib/apt/lists"):
                    continue
                segment = re.sub(r"(?<=[\s\"'])/(out|var|src|etc)\b", lambda m: os.path.join(root, m.group(1)), " " + segment)
                script.append(segment.strip())
            if not script:
                continue
            shims = os.path.join(root, ".shims")
            os.makedirs(shims, exist_ok=True)
            if not FULL:
                with open(os.path.join(shims, "swift"), "w") as handle:
                    handle.write(SWIFT_SHIM)
                os.chmod(os.path.join(shims, "swift"), 0o755)
            env = dict(os.environ, PRODUCT=product, RV_SHIM_BIN=BIN, RV_SHIM_PENDING=PENDING_CLI,
                       PATH=(shims + ":" if not FULL else "") + os.environ["PATH"])
            result = subprocess.run(["bash", "-euo", "pipefail", "-c", " && ".join(script)], cwd=workdir, env=env,
                                    capture_output=True, text=True)
            if result.returncode != 0:
                fail(f"{stage['name']} ({product}): RUN {' && '.join(script)[:120]}...: {result.stderr.strip()[-400:]}")
            else:
                ok(f"{stage['name']} ({product}): RUN steps ran in a clean directory")
        elif keyword == "COPY" and "--from" in rest:
            words = [w for w in shlex.split(rest) if not w.startswith("--")]
            source = os.path.join(root, words[0].lstrip("/"))
            if not os.path.exists(source):
                fail(f"{stage['name']}: COPY --from {words[0]}: the build stage did not make it")


SWIFT_SHIM = """#!/usr/bin/env bash
# validate.py's stand-in for `swift build -c release --product P`: the product must be one of the
# package's executables; its already built binary is put where the real build would leave it.
set -euo pipefail
product=""
while [ $# -gt 0 ]; do case "$1" in --product) product="$2"; shift 2 ;; *) shift ;; esac; done
[ -n "$product" ] || { echo "swift shim: no --product" >&2; exit 1; }
if [ "$product" = "${RV_SHIM_PENDING:-}" ]; then
    mkdir -p .build/release && printf '#!/bin/sh\nexit 1\n' >".build/release/$product" && chmod +x ".build/release/$product"
    exit 0
fi
grep -q "\\.executable(name: \\"$product\\"" Package.swift || { echo "swift shim: no product $product" >&2; exit 1; }
[ -x "$RV_SHIM_BIN/$product" ] || { echo "swift shim: $product is not built in $RV_SHIM_BIN" >&2; exit 1; }
mkdir -p .build/release
ln -f "$RV_SHIM_BIN/$product" ".build/release/$product" 2>/dev/null || cp "$RV_SHIM_BIN/$product" ".build/release/$product"
"""


# The `rendezvous` CLI (its `health` command is every image's health check) comes from another
# branch; until Package.swift has it, the build stage's second `swift build` is stood in for and
# the report says so.
PENDING_CLI = "" if "rendezvous" in executable_products() else "rendezvous"


def check_dockerfile(compose):
    ignore = os.path.join(COMPOSE, "Dockerfile.dockerignore")
    patterns = set(open(ignore).read().split()) if os.path.exists(ignore) else set()
    if {".build", ".data", ".git", "compose/.env", "compose/tls"} <= patterns:
        ok("Dockerfile.dockerignore keeps builds, clusters, secrets and .git out of the context")
    else:
        fail("Dockerfile.dockerignore must exclude .build, .data, .git, compose/.env and compose/tls")
    if PENDING_CLI:
        notes.append("PENDING: Package.swift has no `rendezvous` executable yet (the CLI's branch): the Dockerfile's "
                     "`swift build --product rendezvous` was stood in for, and health was read from /readyz")
    path = os.path.join(COMPOSE, "Dockerfile")
    stages = dockerfile_stages(path)
    products = sorted({(s.get("build") or {}).get("args", {}).get("PRODUCT") for s in compose["services"].values()} - {None})
    for product in products:
        root = tempfile.mkdtemp(prefix="rv-image-")
        try:
            for name in ("build", "service"):
                run_stage_steps(stages[name], root, product)
            check_runtime_libraries(stages["service"], os.path.join(root, "out/bin"), product)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    root = tempfile.mkdtemp(prefix="rv-image-")
    try:
        run_stage_steps(stages["edge"], root, "edge")
    finally:
        shutil.rmtree(root, ignore_errors=True)


_library_owners = {}


def library_packages(paths):
    """The Debian package of each library path (one dpkg -S for the paths not seen yet)."""
    unseen = [p for p in paths if p not in _library_owners]
    if unseen:
        candidates = {}
        for path in unseen:
            candidates[path] = path
            candidates[os.path.realpath(path)] = path
            # Debian 12 merges /lib into /usr/lib; dpkg knows the file by the path it shipped.
            for prefix, other in (("/usr/lib/", "/lib/"), ("/lib/", "/usr/lib/")):
                if path.startswith(prefix):
                    candidates[other + path[len(prefix):]] = path
        output = subprocess.run(["dpkg", "-S", *candidates], capture_output=True, text=True).stdout
        for line in output.splitlines():
            package, _, found = line.partition(": ")
            if found in candidates:
                _library_owners.setdefault(candidates[found], package.split(":")[0])
        for path in unseen:
            _library_owners.setdefault(path, f"? ({path})")
    return {p: _library_owners[p] for p in paths}


def check_runtime_libraries(stage, bin_dir, product):
    """Every shared library the executables link comes from a package the runtime stage
    installs (or the slim base image has). Swift's own libraries are static in the image."""
    installed = set()
    for keyword, rest in stage["steps"]:
        if keyword == "RUN":
            installed.update(apt_packages(rest))
    base = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}
    needed = {}
    products = sorted(os.listdir(bin_dir)) if os.path.isdir(bin_dir) else []
    executables = [os.path.join(bin_dir, p) for p in products]
    libraries = {}
    for executable in executables:
        output = subprocess.run(["ldd", executable], capture_output=True, text=True).stdout
        for match in re.finditer(r"=>\s+(/\S+)", output):
            if "/swift" not in match.group(1):
                libraries.setdefault(match.group(1), set()).add(os.path.basename(executable))
    owners = library_packages(sorted(libraries))
    for library, users in libraries.items():
        needed.setdefault(owners.get(library, f"? ({library})"), set()).update(users)
    direct = {p for p in needed}
    # The runtime packages pull their own dependencies in; check the direct ones the binaries
    # name are installed or depended on by what is.
    closure = dependency_closure(installed) | base
    missing = sorted(p for p in direct if p not in closure and not p.startswith("?"))
    unknown = sorted(p for p in direct if p.startswith("?"))
    if missing:
        fail(f"service stage: the executables link libraries of packages it does not install: {missing}")
    else:
        ok(f"service stage ({product}): every library its executables link is installed ({', '.join(sorted(direct - {p for p in direct if p.startswith('?')}))})")
    if unknown:
        notes.append(f"libraries outside Debian packages (Swift's, static in the image): {unknown}")


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
    certificate: nginx takes it, and a gRPC health check through it reaches interop."""
    with open(os.path.join(COMPOSE, "nginx/rendezvous.conf")) as handle:
        config = handle.read()
    work = tempfile.mkdtemp(prefix="rv-edge-")
    try:
        ca = subprocess.run(["bash", os.path.join(COMPOSE, "nginx/make-cert.sh"), os.path.join(work, "tls")],
                            capture_output=True, text=True, check=True).stdout.strip()
        edge_port = free_port()
        config = config.replace("/etc/rendezvous/tls", os.path.join(work, "tls"))
        config = config.replace("listen 0.0.0.0:8443", f"listen 127.0.0.1:{edge_port}")
        for name, (port, admin) in ports.items():
            config = re.sub(rf"server {name}:\d+;", f"server 127.0.0.1:{port};", config)
        config = re.sub(r"server media:7205;", f"server 127.0.0.1:{ports['media'][1]};", config)
        os.makedirs(os.path.join(work, "run"))
        with open(os.path.join(work, "run/nginx.conf"), "w") as handle:
            handle.write(config)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        edge = subprocess.Popen([nginx, "-p", os.path.join(work, "run") + "/", "-c", os.path.join(work, "run/nginx.conf")],
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


def main():
    started = time.monotonic()
    try:
        run_checks()
    finally:
        for copy in _clean_copies.values():
            shutil.rmtree(os.path.dirname(copy), ignore_errors=True)
    for note in notes:
        print("note " + note)
    print(f"validate: {len(failures)} failure(s) in {time.monotonic() - started:.1f} s")
    print("not run here: docker build (no container engine), the images' base layers, the postgis image's entrypoint, "
          "DNS between containers" + ("" if FULL else ", the real swift build in the clean directory (--build runs it)"))
    sys.exit(1 if failures else 0)


def run_checks():
    compose, example = check_compose()
    check_edge_config()
    check_dockerfile(compose)
    database = f"rv_validate_{os.getpid()}"
    try:
        if check_postgres_init(database):
            check_entrypoints(compose, example, database)
    finally:
        psql("-d", "postgres", "-c", f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


if __name__ == "__main__":
    main()
