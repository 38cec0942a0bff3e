#!/usr/bin/env python3
"""Discovery benchmark: the release `discovery` and `identity` executables on the local Postgres,
GetFeed driven over the wire by h2load.

A bench app (`benchapp`, added through RV_IDENTITY_APPS_FILE, as a deployment adds a product)
gets 100,000 profiles in discovery's projection, spread over a 2°×2° box around one city
(about 21,000 of them within the default 50 km radius of its centre). One viewer signs in
anonymously, saves a profile at the centre, and its feed of 20 cards is requested at 16 and 64
concurrent streams (4 connections). Every request is the first page: the ranking runs in full
each time. Then swipes at 16 and 64 streams, by identity-bench (our own gRPC client: each
request likes the next seeded profile, which a fixed-body tool cannot): every stream a fresh
account; and likes in group sessions, each stream liking the options of a session of its own
in turn. Then LikeOption contended on one session: the product's quorum is at most 5, so the
five participants of one quorum-5 session send from 16 and 64 concurrent callers, every like
taking that session's row lock without completing an option; after the runs all 64 callers send
the last missing like of the deck's options at once (each completes one), and the run passes only
when every caller is answered match_found with one and the same winner (OneSessionLikes).
RV_BENCH_SECONDS sets each run's length (default 10).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))
from rpc_bench import cpu_seconds, free_port, latencies_us, parse_summary, percentile, rss_kib, wait_for_listening  # noqa: E402

PG = dict(host=os.environ.get("RV_PG_HOST", "127.0.0.1"), port=os.environ.get("RV_PG_PORT", "7432"),
          db=os.environ.get("RV_PG_DATABASE", "rendezvous"))
SECONDS = int(os.environ.get("RV_BENCH_SECONDS", "10"))
SECRET = "discovery-bench-secret-0123456789abcdef"
PROFILES = 100_000


def url(role):
    password = os.environ.get(f"RV_PG_PASSWORD_{role.upper()}", f"rv_{role}_local")
    return f"postgresql://rv_{role}:{password}@{PG['host']}:{PG['port']}/{PG['db']}"


def psql(sql):
    subprocess.run(["psql", url("admin"), "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                   capture_output=True, text=True)


def seed():
    """100k active profiles of benchapp in discovery's projection (once), and benchapp's tier."""
    psql("""INSERT INTO identity.tiers (app, tier, rank, display_name, likes_per_day, super_likes_per_day,
                see_who_liked_you, read_receipts, advanced_filters, incognito, boosts_per_month,
                referral_codes_per_month, priority_in_discovery)
            VALUES ('benchapp', 'free', 0, 'Bench', NULL, 1, 'clear', true, true, false, 0, 0, false)
            ON CONFLICT DO NOTHING""")
    count = subprocess.run(["psql", url("admin"), "-At", "-c",
                            "SELECT count(*) FROM discovery.profiles WHERE app = 'benchapp' AND public_name LIKE 'bench %'"],
                           check=True, capture_output=True, text=True).stdout.strip()
    if int(count or 0) >= PROFILES:
        return
    psql(f"""DELETE FROM discovery.profiles WHERE app = 'benchapp' AND public_name LIKE 'bench %';
             INSERT INTO discovery.profiles (account_id, app, active, public_name, gender, birth_date, tags, location,
                                             tier, last_active_at, listed_at)
             SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 'benchapp', true, 'bench ' || i, 1 + i % 3, date '1970-01-01' + (i % 12000),
                    ARRAY['t' || (i % 50), 't' || (i % 37), 't' || (i % 23)],
                    ST_SetSRID(ST_MakePoint(-74.0 + (random() - 0.5) * 2, 40.7 + (random() - 0.5) * 2), 4326)::geography,
                    'free', now() - (i % 30) * interval '1 day', now() - interval '40 days'
             FROM generate_series(1, {PROFILES}) i;
             ANALYZE discovery.profiles;""")


def grpc_stubs():
    out = tempfile.mkdtemp(prefix="rv-bench-protos-")
    subprocess.run(["bash", os.path.join(ROOT, "Tests/InteropTests/Fixtures/gen_protos.sh"), out], check=True,
                   capture_output=True)
    sys.path.insert(0, out)
    import grpc  # noqa: F401
    from rendezvous.identity.v1 import identity_pb2, identity_pb2_grpc, profiles_pb2, profiles_pb2_grpc
    from rendezvous.discovery.v1 import discovery_pb2, discovery_pb2_grpc
    return grpc, identity_pb2, identity_pb2_grpc, profiles_pb2, profiles_pb2_grpc, discovery_pb2, discovery_pb2_grpc


def start(name, env):
    process = subprocess.Popen([os.path.join(ROOT, ".build/release", name)], env=dict(os.environ, **env),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wait_for_listening(process)
    return process


def main():
    for name in ("identity", "discovery", "identity-bench"):
        if not os.path.exists(os.path.join(ROOT, ".build/release", name)):
            sys.exit(f".build/release/{name} not built: swift build -c release")
    (grpc, identity_pb2, identity_pb2_grpc, profiles_pb2, profiles_pb2_grpc,
     discovery_pb2, discovery_pb2_grpc) = grpc_stubs()
    apps = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump({"apps": [{"id": "benchapp", "sign_in_methods": ["anonymous"], "minimum_age": 0}]}, apps)
    apps.close()
    identity_port, discovery_port = free_port(), free_port()
    identity = start("identity", {"RV_IDENTITY_PORT": str(identity_port), "RV_IDENTITY_ADMIN_PORT": str(free_port()),
                                  "RV_PG_URL_IDENTITY": url("identity"), "RV_LOG_LEVEL": "warning",
                                  "RV_IDENTITY_APPS_FILE": apps.name, "RV_SERVICE_CREDENTIALS": f"discovery={SECRET}"})
    discovery = start("discovery", {"RV_DISCOVERY_PORT": str(discovery_port), "RV_DISCOVERY_ADMIN_PORT": str(free_port()),
                                    "RV_PG_URL_DISCOVERY": url("discovery"), "RV_LOG_LEVEL": "warning",
                                    "RV_IDENTITY_ADDRESS": f"127.0.0.1:{identity_port}", "RV_DISCOVERY_APPS": "benchapp",
                                    "RV_SERVICE_NAME": "discovery", "RV_SERVICE_SECRET": SECRET})
    try:
        # After both have started: their migrations make the tables the seed writes (a fresh
        # database, such as make bench's own, has none before).
        seed()
        channel = grpc.insecure_channel(f"127.0.0.1:{identity_port}")
        session = identity_pb2_grpc.IdentityStub(channel).SignInAnonymously(
            identity_pb2.SignInAnonymouslyRequest(app="benchapp", device_name="bench"))
        bearer = [("authorization", "Bearer " + session.access_token)]
        fields = profiles_pb2.ProfileFields(bio="bench viewer", tags=["t1", "t2", "t3"], active=True,
                                            location=profiles_pb2.GeoPoint(latitude=40.7, longitude=-74.0))
        profiles_pb2_grpc.ProfilesStub(channel).UpdateProfile(
            profiles_pb2.UpdateProfileRequest(fields=fields, update_mask=["bio", "tags", "active", "location"]), metadata=bearer)
        feed = discovery_pb2_grpc.DiscoveryStub(grpc.insecure_channel(f"127.0.0.1:{discovery_port}"))
        request = discovery_pb2.GetFeedRequest(page_size=20)
        deadline = time.time() + 30
        while True:  # the projection follows identity's events: wait for the viewer's point
            cards = feed.GetFeed(request, metadata=bearer).cards
            if cards and cards[0].distance_meters > 0 or time.time() > deadline:
                break
            time.sleep(0.1)
        if len(cards) != 20:
            sys.exit(f"the feed answered {len(cards)} cards, not 20")
        body = request.SerializeToString()
        body_file = tempfile.NamedTemporaryFile(delete=False)
        body_file.write(b"\x00" + len(body).to_bytes(4, "big") + body)
        body_file.close()
        print(f"discovery (release), GetFeed of 20 cards, {PROFILES} profiles in the app, "
              f"{SECONDS} s per run, h2load -c 4, 2 cores shared with Postgres and h2load")
        print(f"{'streams':>7} {'req/s':>8} {'ok':>7} {'p50 ms':>8} {'p99 ms':>8} {'srv CPU':>8} {'RSS MiB':>8}")
        for streams in (16, 64):
            log = tempfile.NamedTemporaryFile(delete=False).name
            before = cpu_seconds(discovery.pid)
            started = time.time()
            result = subprocess.run(["h2load", "-D", str(SECONDS), "-c", "4", "-m", str(streams // 4), "-t", "1",
                                     "-H", "content-type: application/grpc", "-H", "te: trailers",
                                     "-H", "authorization: Bearer " + session.access_token, "-d", body_file.name,
                                     "--log-file", log,
                                     f"http://127.0.0.1:{discovery_port}/rendezvous.discovery.v1.Discovery/GetFeed"],
                                    capture_output=True, text=True, timeout=SECONDS + 120)
            elapsed = time.time() - started
            cpu = (cpu_seconds(discovery.pid) - before) / elapsed * 100
            rps, ok, _ = parse_summary(result.stdout)
            values = latencies_us(log)
            print(f"{streams:>7} {rps:>8.0f} {ok:>7} {percentile(values, 0.5) / 1000:>8.2f} "
                  f"{percentile(values, 0.99) / 1000:>8.2f} {cpu:>7.0f}% {rss_kib(discovery.pid) / 1024:>8.1f}")
        # h2load counts HTTP 200; a gRPC error is a 200 too, so check the answer is still a feed.
        if len(feed.GetFeed(request, metadata=bearer).cards) != 20:
            sys.exit("the feed stopped answering 20 cards during the run")
        print(flush=True)
        result = subprocess.run([os.path.join(ROOT, ".build/release/identity-bench"), "--port", str(identity_port),
                                 "--discovery-port", str(discovery_port), "--discovery-app", "benchapp",
                                 "--only", "swipe,group like", "--seconds", str(SECONDS), "--server-pid", str(discovery.pid),
                                 "--warmup", "1"], timeout=SECONDS * 4 + 120)
        if result.returncode != 0:
            sys.exit("identity-bench's swipe runs failed")
    finally:
        for process in (discovery, identity):
            process.terminate()
            process.wait(timeout=15)


if __name__ == "__main__":
    main()
