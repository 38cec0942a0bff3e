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
Beside the feed runs, pgbench runs the feed's SQL alone at the same concurrency (`FEED_SQL`):
what Postgres does per feed on this box with no server in between, the floor of that design.

RV_BENCH_SECONDS sets each run's length (default 10); RV_BENCH_PROFILES the profiles seeded
(default 100,000, always in the same box: more profiles are denser);
RV_BENCH_ONLY=feed or =swipes runs that part alone; =feed-after-pass runs only identity-bench's
"feed after a pass": every stream a member of its own at the centre passing on the top card of
its first page, then reading the first page again (pairs/s: a feed after each own swipe).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))
from db_bench import run_pgbench  # noqa: E402
from rpc_bench import cpu_seconds, free_port, latencies_us, parse_summary, percentile, rss_kib, wait_for_listening  # noqa: E402

PG = dict(host=os.environ.get("RV_PG_HOST", "127.0.0.1"), port=os.environ.get("RV_PG_PORT", "7432"),
          db=os.environ.get("RV_PG_DATABASE", "rendezvous"))
SECONDS = int(os.environ.get("RV_BENCH_SECONDS", "10"))
SECRET = "discovery-bench-secret-0123456789abcdef"
PROFILES = int(os.environ.get("RV_BENCH_PROFILES", "100000"))
ONLY = os.environ.get("RV_BENCH_ONLY", "")


def url(role):
    password = os.environ.get(f"RV_PG_PASSWORD_{role.upper()}", f"rv_{role}_local")
    return f"postgresql://rv_{role}:{password}@{PG['host']}:{PG['port']}/{PG['db']}"


def psql(sql):
    """Runs `sql`; its rows' text, unaligned, a row a line."""
    return subprocess.run(["psql", url("admin"), "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                          capture_output=True, text=True).stdout.strip()


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
    if int(count or 0) == PROFILES:
        return
    psql(f"""DELETE FROM discovery.profiles WHERE app = 'benchapp' AND public_name LIKE 'bench %';
             INSERT INTO discovery.profiles (account_id, app, active, public_name, gender, birth_date, tags, location,
                                             tier, last_active_at, listed_at)
             SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 'benchapp', true, 'bench ' || i, 1 + i % 3, date '1970-01-01' + (i % 12000),
                    ARRAY['t' || (i % 50), 't' || (i % 37), 't' || (i % 23)],
                    ST_SetSRID(ST_MakePoint(-74.0 + (random() - 0.5) * 2, 40.7 + (random() - 0.5) * 2), 4326)::geography,
                    'free', now() - (i % 30) * interval '1 day', now() - interval '40 days'
             FROM generate_series(1, {PROFILES}) i;""")
    # Vacuumed now, not by autovacuum during the timed runs (a million fresh rows keep it busy).
    psql("VACUUM (ANALYZE) discovery.profiles")


# The feed's SQL as FeedStore sent it before issue 26 (one transaction: the viewer's point and
# tags, then one query ranking the nearest 400), with the bench viewer's parameters: `:viewer`,
# tags t1-t3 and the point (40.7, -74.0), no filters, no priority tiers, the first page of 21.
# -M extended, as libpq's unnamed statements: each plan made for its parameters.
FEED_SQL_BEFORE = r"""BEGIN;
WITH custom AS MATERIALIZED (SELECT set_config('plan_cache_mode', 'force_custom_plan', true) AS mode),
     me AS (SELECT tags, location, neighborhood FROM discovery.profiles WHERE account_id = :viewer),
     point AS (
         SELECT coalesce(me.location::geometry,
                         (SELECT ST_Centroid(ST_Collect(p.location::geometry)) FROM discovery.profiles p
                          WHERE me.location IS NULL AND me.neighborhood <> '' AND p.app = 'benchapp'
                            AND p.neighborhood = me.neighborhood AND p.location IS NOT NULL)) AS g
         FROM me)
SELECT coalesce(me.tags, '{}'), ST_Y(point.g), ST_X(point.g), custom.mode
FROM custom LEFT JOIN (me CROSS JOIN point) ON true;
WITH v AS MATERIALIZED (
    SELECT now() AS as_of, ST_SetSRID(ST_MakePoint(-74.0, 40.7), 4326)::geography AS location
), candidates AS (
    SELECT p.account_id, p.public_name, p.birth_date, p.gender, p.bio, p.title, p.tags, p.neighborhood,
           p.photo_ids, p.verified, p.tier, public.ST_SnapToGrid(p.location::public.geometry, 0.01)::public.geography AS location,
           p.last_active_at, p.listed_at, p.boosted_until
    FROM discovery.profiles p
    WHERE p.app = 'benchapp' AND p.active AND p.admitted AND p.account_id <> :viewer
      AND p.listed_at <= now()
      AND NOT EXISTS (SELECT 1 FROM discovery.swipes s WHERE s.swiper_id = :viewer AND s.target_id = p.account_id)
      AND NOT EXISTS (SELECT 1 FROM discovery.blocks b WHERE b.blocker_id = :viewer AND b.blocked_id = p.account_id)
      AND NOT EXISTS (SELECT 1 FROM discovery.blocks b WHERE b.blocker_id = p.account_id AND b.blocked_id = :viewer)
      AND NOT EXISTS (SELECT 1 FROM discovery.reports r WHERE r.reporter_id = :viewer AND r.reported_id = p.account_id)
      AND (NOT p.incognito OR EXISTS (SELECT 1 FROM discovery.swipes k
                                      WHERE k.swiper_id = p.account_id AND k.target_id = :viewer AND k.action >= 2))
      AND p.location IS NOT NULL
    ORDER BY p.location <-> ST_SetSRID(ST_MakePoint(-74.0, 40.7), 4326)::geography
    LIMIT 500
), scored AS MATERIALIZED (
    SELECT c.*, l.action AS liked, v.as_of,
           CASE WHEN v.location IS NULL OR c.location IS NULL THEN 0
                ELSE ST_Distance(c.location, v.location, false) END AS distance,
           (SELECT count(*) FROM discovery.connections mine JOIN discovery.connections theirs
              ON theirs.other_id = mine.other_id AND theirs.account_id = c.account_id
            WHERE mine.account_id = :viewer)::int4 AS mutual
    FROM candidates c CROSS JOIN v
    LEFT JOIN discovery.swipes l
      ON l.swiper_id = c.account_id AND l.target_id = :viewer AND l.action >= 2 AND l.created_at <= v.as_of
), ranked AS (
    SELECT r.*,
           CASE WHEN r.boosted_until > r.as_of THEN 1000 ELSE 0 END
           + 400 * r.mutual
           + CASE WHEN r.tier = ANY('{}'::text[]) THEN 200 ELSE 0 END
           + CASE r.liked WHEN 3 THEN 250 WHEN 2 THEN 150 ELSE 0 END
           + 20 * greatest(0, 14 - floor(greatest(0, extract(epoch FROM
                 (r.as_of - coalesce(r.last_active_at, r.listed_at)))) / 86400))::int8
           + 100 * (SELECT count(*) FROM unnest(r.tags) t WHERE t = ANY('{t1,t2,t3}'::text[]))
           - 2 * floor(r.distance / 1000)::int8 AS score
    FROM scored r
)
SELECT account_id, public_name, coalesce(date_part('year', age((as_of AT TIME ZONE 'UTC')::date, birth_date))::int4, 0),
       gender, bio, title, tags, ARRAY(SELECT t FROM unnest(tags) t WHERE t = ANY('{t1,t2,t3}'::text[]) ORDER BY t),
       neighborhood, distance, photo_ids, verified, coalesce(liked = 3, false), score, mutual
FROM ranked
WHERE distance <= 50000
ORDER BY score DESC, account_id
LIMIT 21;
COMMIT;
"""

# The feed's SQL now (FeedPages), its shapes. A page from the viewer's kept window: the page's
# cards (21 by id) and the stamp that tells the window still holds, in one pipeline outside a
# transaction; once its cards are kept too, the stamp alone. A window read afresh (the viewer's first page, or the next after a
# change): the stamp and the viewer, the window of 400 and its tail of 100 with their score parts, the cards, in
# one repeatable-read transaction.
CARDS_SQL = r"""SELECT p.account_id, p.public_name,
       coalesce(date_part('year', age(((now()) AT TIME ZONE 'UTC')::date, p.birth_date))::int4, 0),
       p.gender, p.bio, p.title, p.tags, ARRAY(SELECT t FROM unnest(p.tags) t WHERE t = ANY('{t1,t2,t3}'::text[]) ORDER BY t),
       p.neighborhood, p.photo_ids, p.verified
FROM discovery.profiles p
WHERE p.account_id = ANY(ARRAY(SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid
                               FROM generate_series(1, 21) i));"""
STAMP_SQL = r"""SELECT coalesce((SELECT version FROM discovery.feed_app_versions WHERE app = 'benchapp'), 0),
       coalesce((SELECT version FROM discovery.feed_member_versions WHERE account_id = :viewer), 0),
       (SELECT count(*) FROM discovery.swipes WHERE target_id = :viewer AND action >= 2);"""
FEED_SQL_KEPT = "\\startpipeline\n" + CARDS_SQL + "\n" + STAMP_SQL + "\n\\endpipeline\n"
FEED_SQL_FRESH = r"""BEGIN ISOLATION LEVEL REPEATABLE READ;
""" + STAMP_SQL + r"""
WITH custom AS MATERIALIZED (SELECT set_config('plan_cache_mode', 'force_custom_plan', true) AS mode),
     me AS (SELECT tags, location, neighborhood FROM discovery.profiles WHERE account_id = :viewer),
     point AS (
         SELECT coalesce(me.location::geometry,
                         (SELECT ST_Centroid(ST_Collect(p.location::geometry)) FROM discovery.profiles p
                          WHERE me.location IS NULL AND me.neighborhood <> '' AND p.app = 'benchapp'
                            AND p.neighborhood = me.neighborhood AND p.location IS NOT NULL)) AS g
         FROM me)
SELECT coalesce(me.tags, '{}'), ST_Y(point.g), ST_X(point.g), custom.mode,
       (SELECT (extract(epoch FROM max(p.listed_at)) * 1000000)::int8 FROM discovery.profiles p WHERE p.app = 'benchapp')
FROM custom LEFT JOIN (me CROSS JOIN point) ON true;
WITH v AS MATERIALIZED (
    SELECT ST_SetSRID(ST_MakePoint(-74.0, 40.7), 4326)::geography AS location,
           EXISTS (SELECT 1 FROM discovery.connections WHERE account_id = :viewer) AS connected
), likers AS MATERIALIZED (
    SELECT swiper_id, action, created_at FROM discovery.swipes WHERE target_id = :viewer AND action >= 2
), candidates AS (
    SELECT p.account_id, p.tags, p.tier, public.ST_SnapToGrid(p.location::public.geometry, 0.01)::public.geography AS location,
           coalesce(p.last_active_at, p.listed_at) AS active_at, p.boosted_until,
           p.location <-> ST_SetSRID(ST_MakePoint(-74.0, 40.7), 4326)::geography AS nearness
    FROM discovery.profiles p
    WHERE p.app = 'benchapp' AND p.active AND p.admitted AND p.account_id <> :viewer
      AND p.listed_at <= now()
      AND p.account_id NOT IN (SELECT target_id FROM discovery.swipes WHERE swiper_id = :viewer
                               UNION ALL SELECT blocked_id FROM discovery.blocks WHERE blocker_id = :viewer
                               UNION ALL SELECT blocker_id FROM discovery.blocks WHERE blocked_id = :viewer
                               UNION ALL SELECT reported_id FROM discovery.reports WHERE reporter_id = :viewer)
      AND (NOT p.incognito OR p.account_id IN (SELECT swiper_id FROM likers))
      AND p.location IS NOT NULL
    ORDER BY p.location <-> ST_SetSRID(ST_MakePoint(-74.0, 40.7), 4326)::geography
    LIMIT 500
)
SELECT c.account_id,
       CASE WHEN v.location IS NULL OR c.location IS NULL THEN 0 ELSE ST_Distance(c.location, v.location, false) END,
       c.tier, (extract(epoch FROM c.active_at) * 1000000)::int8, (extract(epoch FROM c.boosted_until) * 1000000)::int8,
       l.action, (extract(epoch FROM l.created_at) * 1000000)::int8,
       CASE WHEN v.connected THEN
           (SELECT count(*) FROM discovery.connections mine JOIN discovery.connections theirs
              ON theirs.other_id = mine.other_id AND theirs.account_id = c.account_id
            WHERE mine.account_id = :viewer)::int4
       ELSE 0 END,
       (SELECT count(*) FROM unnest(c.tags) t WHERE t = ANY('{t1,t2,t3}'::text[]))::int4
FROM candidates c CROSS JOIN v
LEFT JOIN likers l ON l.swiper_id = c.account_id
ORDER BY c.nearness;
""" + CARDS_SQL + """
COMMIT;
"""
# After the viewer's own swipe: the stamp and which of the window's 500 they swiped, in one
# statement (FeedStamp.read(viewer:app:swipedAmong:)); the window's people are the bench app's
# nearest 500 to the centre, as the fresh read above finds them.
OWN_SWIPES_SQL = r"""SELECT coalesce((SELECT version FROM discovery.feed_app_versions WHERE app = 'benchapp'), 0),
       coalesce((SELECT version FROM discovery.feed_member_versions WHERE account_id = :viewer), 0),
       (SELECT count(*) FROM discovery.swipes WHERE target_id = :viewer AND action >= 2),
       ARRAY(SELECT s.target_id FROM discovery.swipes s
             WHERE s.swiper_id = :viewer AND s.target_id IN (SELECT unnest(:window::uuid[])));"""
# (name, script, pgbench's protocol): the fresh read sets its plan mode itself, as the server does.
FEED_SCRIPTS = [("the feed's SQL before issue 26", FEED_SQL_BEFORE, "extended"),
                ("a window read afresh (FeedStore.window and the rest)", FEED_SQL_FRESH, "extended"),
                ("a page from a kept window, its cards read (cards, stamp)", FEED_SQL_KEPT, "extended"),
                ("a page from a kept window and kept cards (the stamp)", STAMP_SQL + "\n", "extended"),
                ("the check after the viewer's own swipe (stamp, swiped among the 500; prepared, as the server runs it)",
                 OWN_SWIPES_SQL + "\n", "prepared")]


# A like as Postgres alone sees it, one pgbench client per stream, each call a new swiper (a
# random uuid) liking a random seeded profile of benchapp, no one liking back. Before issue 26
# (SwipeStore then): the transaction's three round trips, the pair's lock with the state read,
# the allowance with the row and the look for a like back, the COMMIT. Now: discovery.swipe,
# one statement committed on its own.
SWIPE_IDS = r"""\set s random(1, 1000000000000)
\set t random(1, 100000)
"""
SWIPER = "md5(:s::text)::uuid"
TARGET = "('00000000-0000-4000-8000-' || lpad(to_hex(:t::int8), 12, '0'))::uuid"
DAY = "((now() AT TIME ZONE 'UTC')::date - date '1970-01-01')"
SWIPE_SQL_BEFORE = SWIPE_IDS + rf"""\startpipeline
BEGIN;
SELECT pg_advisory_xact_lock(hashtextextended(LEAST({SWIPER}, {TARGET})::text || GREATEST({SWIPER}, {TARGET})::text, 7102));
SELECT s.action, s.created_at,
       EXISTS (SELECT 1 FROM discovery.profiles p
               WHERE p.account_id = {TARGET} AND p.app = 'benchapp' AND p.active AND p.admitted
                 AND NOT EXISTS (SELECT 1 FROM discovery.blocks b
                                 WHERE (b.blocker_id = {TARGET} AND b.blocked_id = {SWIPER})
                                    OR (b.blocker_id = {SWIPER} AND b.blocked_id = {TARGET}))),
       coalesce(u.likes, 0), coalesce(u.super_likes, 0)
FROM (SELECT 1) one
LEFT JOIN discovery.swipes s ON s.swiper_id = {SWIPER} AND s.target_id = {TARGET}
LEFT JOIN discovery.daily_usage u ON u.account_id = {SWIPER} AND u.day = date '1970-01-01' + {DAY};
\endpipeline
\startpipeline
INSERT INTO discovery.daily_usage AS u (account_id, day, likes, super_likes)
VALUES ({SWIPER}, date '1970-01-01' + {DAY}, 1, 0)
ON CONFLICT (account_id, day) DO UPDATE SET likes = u.likes + EXCLUDED.likes, super_likes = u.super_likes + EXCLUDED.super_likes
RETURNING u.likes, u.super_likes;
WITH inserted AS (
    INSERT INTO discovery.swipes (swiper_id, target_id, app, action, quiz) VALUES ({SWIPER}, {TARGET}, 'benchapp', 2, false)
    RETURNING created_at
)
SELECT created_at, (SELECT action FROM discovery.swipes WHERE swiper_id = {TARGET} AND target_id = {SWIPER} AND action >= 2 AND NOT quiz)
FROM inserted;
\endpipeline
COMMIT;
"""
SWIPE_SQL = SWIPE_IDS + rf"""SELECT * FROM discovery.swipe({SWIPER}, {TARGET}, 'benchapp', 2::smallint, false, -1, {DAY}, false);
"""
SWIPE_SCRIPTS = [("a like as SwipeStore sent it before issue 26", SWIPE_SQL_BEFORE), ("a like now (discovery.swipe)", SWIPE_SQL)]


def pgbench(script, clients, viewer=""):
    """See pgbench_with: the script's :viewer is `viewer`."""
    return pgbench_with(script, clients, {"viewer": viewer} if viewer else {})


def pgbench_with(script, clients, variables, mode="extended"):
    """pgbench's transactions/s, average latency (ms) and p99 latency (ms, from its per-transaction
    log: the bound the server's own p99 sits above) for `script` with `clients` clients."""
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "feed.sql")
        with open(path, "w") as f:
            f.write(script)
        env = dict(os.environ, PGPASSWORD=os.environ.get("RV_PG_PASSWORD_DISCOVERY", "rv_discovery_local"))
        run = run_pgbench(["-h", PG["host"], "-p", PG["port"], "-U", "rv_discovery", "-n", "-M", mode,
                           "-c", str(clients), "-j", "2", "-T", str(SECONDS),
                           *[arg for name, value in variables.items() for arg in ("-D", f"{name}={value}")],
                           "--log", f"--log-prefix={work}/tx", "-f", path, PG["db"]], env, timeout=SECONDS + 120)
        if not run:
            return None
        # Each line: client, transaction, latency (µs), script, epoch, µs.
        latencies = sorted(int(line.split()[2]) / 1000 for name in os.listdir(work) if name.startswith("tx")
                           for line in open(os.path.join(work, name)))
        return (*run, percentile(latencies, 0.99))


def print_pgbench(name, clients, run, unit):
    print(f"pgbench, {name}, {clients} clients: " +
          (f"{run[0]:.0f} {unit}/s, {run[1]:.2f} ms average, p99 {run[2]:.2f} ms" if run else "failed (its output is on stderr)"),
          flush=True)


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


def run_feed(discovery, discovery_port, session, feed, request, bearer):
    """h2load's GetFeed runs at 16 and 64 streams."""
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
        if ONLY in ("", "feed"):
            run_feed(discovery, discovery_port, session, feed, request, bearer)
            viewer = session.account.id
            # The window's people, as the fresh read finds them (OWN_SWIPES_SQL).
            window = "{" + ",".join(psql(f"""SELECT account_id FROM discovery.profiles
                WHERE app = 'benchapp' AND account_id <> '{viewer}' AND location IS NOT NULL
                ORDER BY location <-> ST_SetSRID(ST_MakePoint(-74.0, 40.7), 4326)::geography LIMIT 500""").split()) + "}"
            for name, script, mode in FEED_SCRIPTS:
                for clients in (16, 64):
                    print_pgbench(name, clients, pgbench_with(script, clients, {"viewer": viewer, "window": window}, mode),
                                  "feeds")
        print(flush=True)
        if ONLY == "feed":
            return
        result = subprocess.run([os.path.join(ROOT, ".build/release/identity-bench"), "--port", str(identity_port),
                                 "--discovery-port", str(discovery_port), "--discovery-app", "benchapp",
                                 "--only", {"swipes": "swipe", "feed-after-pass": "feed after"}.get(ONLY, "swipe,feed after,group like"), "--seconds", str(SECONDS), "--server-pid", str(discovery.pid),
                                 "--warmup", "1"], timeout=SECONDS * 4 + 120)
        if result.returncode != 0:
            sys.exit("identity-bench's swipe runs failed")
        for name, script in SWIPE_SCRIPTS if ONLY != "feed-after-pass" else []:
            for clients in (16, 64):
                print_pgbench(name, clients, pgbench(script, clients), "swipes")
    finally:
        for process in (discovery, identity):
            process.terminate()
            process.wait(timeout=15)


if __name__ == "__main__":
    main()
