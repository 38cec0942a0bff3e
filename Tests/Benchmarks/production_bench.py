#!/usr/bin/env python3
"""Production benchmark: the release `production` and `identity` executables on the local
Postgres, driven over the wire by h2load (4 connections, 16 and 64 concurrent streams).

A FirstDate host signs up (role granted with `identity grant-role`, as an operator does) and a
bench season gets 10 episodes and 10,000 ledger entries in two currencies (seeded with SQL),
then:
  - GetProfitAndLoss of the season (every sum over the 10,000 entries, per request);
  - ListEpisodes of the season as a viewer: the membrane query viewers hit most (10 published
    episodes through PublishedEpisode);
  - CaptureConsent by the host for a cast participant: each request inserts one immutable
    record (the text version, cast and legal name checked on every call).
RV_BENCH_SECONDS sets each run's length (default 10).
"""
import os
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))
from rpc_bench import cpu_seconds, free_port, latencies_us, parse_summary, percentile, rss_kib, wait_for_listening  # noqa: E402

PG = dict(host=os.environ.get("RV_PG_HOST", "127.0.0.1"), port=os.environ.get("RV_PG_PORT", "7432"),
          db=os.environ.get("RV_PG_DATABASE", "rendezvous"))
SECONDS = int(os.environ.get("RV_BENCH_SECONDS", "10"))
ENTRIES = 10_000


def url(role):
    password = os.environ.get(f"RV_PG_PASSWORD_{role.upper()}", f"rv_{role}_local")
    return f"postgresql://rv_{role}:{password}@{PG['host']}:{PG['port']}/{PG['db']}"


def psql(sql):
    return subprocess.run(["psql", url("admin"), "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                          capture_output=True, text=True).stdout.strip()


def grpc_stubs():
    out = tempfile.mkdtemp(prefix="rv-bench-protos-")
    subprocess.run(["bash", os.path.join(ROOT, "Tests/InteropTests/Fixtures/gen_protos.sh"), out], check=True,
                   capture_output=True)
    sys.path.insert(0, out)
    import grpc
    from rendezvous.identity.v1 import identity_pb2, identity_pb2_grpc
    from rendezvous.production.v1 import production_pb2, production_pb2_grpc
    return grpc, identity_pb2, identity_pb2_grpc, production_pb2, production_pb2_grpc


def start(name, env):
    process = subprocess.Popen([os.path.join(ROOT, ".build/release", name)], env=dict(os.environ, **env),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wait_for_listening(process)
    return process


def body_file(message):
    body = message.SerializeToString()
    handle = tempfile.NamedTemporaryFile(delete=False)
    handle.write(b"\x00" + len(body).to_bytes(4, "big") + body)
    handle.close()
    return handle.name


def h2load(port, path, token, body, streams, server_pid):
    log = tempfile.NamedTemporaryFile(delete=False).name
    before = cpu_seconds(server_pid)
    started = time.time()
    result = subprocess.run(["h2load", "-D", str(SECONDS), "-c", "4", "-m", str(streams // 4), "-t", "1",
                             "-H", "content-type: application/grpc", "-H", "te: trailers",
                             "-H", "authorization: Bearer " + token, "-d", body, "--log-file", log,
                             f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, timeout=SECONDS + 120)
    elapsed = time.time() - started
    cpu = (cpu_seconds(server_pid) - before) / elapsed * 100
    rps, ok, _ = parse_summary(result.stdout)
    values = latencies_us(log)
    return rps, ok, percentile(values, 0.5) / 1000, percentile(values, 0.99) / 1000, cpu, rss_kib(server_pid) / 1024


def main():
    for name in ("identity", "production"):
        if not os.path.exists(os.path.join(ROOT, ".build/release", name)):
            sys.exit(f".build/release/{name} not built: swift build -c release")
    grpc, identity_pb2, identity_pb2_grpc, production_pb2, production_pb2_grpc = grpc_stubs()
    identity_port, production_port = free_port(), free_port()
    identity = start("identity", {"RV_IDENTITY_PORT": str(identity_port), "RV_IDENTITY_ADMIN_PORT": str(free_port()),
                                  "RV_PG_URL_IDENTITY": url("identity"), "RV_LOG_LEVEL": "warning"})
    production = start("production", {"RV_PRODUCTION_PORT": str(production_port), "RV_PRODUCTION_ADMIN_PORT": str(free_port()),
                                      "RV_PG_URL_PRODUCTION": url("production"), "RV_LOG_LEVEL": "warning",
                                      "RV_IDENTITY_ADDRESS": f"127.0.0.1:{identity_port}"})
    try:
        accounts = identity_pb2_grpc.IdentityStub(grpc.insecure_channel(f"127.0.0.1:{identity_port}"))

        def sign_up(role=None):
            session = accounts.SignUpWithEmail(identity_pb2.SignUpWithEmailRequest(
                app="firstdate", email=f"bench-{uuid.uuid4().hex[:12]}@example.com", password="correct horse battery staple",
                device_name="bench"))
            if role:
                subprocess.run([os.path.join(ROOT, ".build/release/identity"), "grant-role", "--app", "firstdate",
                                "--account-id", session.account.id, "--role", role],
                               env=dict(os.environ, RV_PG_URL_IDENTITY=url("identity")), check=True, capture_output=True)
                session = accounts.RefreshSession(identity_pb2.RefreshSessionRequest(refresh_token=session.refresh_token))
            return session

        host, viewer = sign_up("host"), sign_up()
        channel = grpc.insecure_channel(f"127.0.0.1:{production_port}")
        episodes = production_pb2_grpc.EpisodesStub(channel)
        consent = production_pb2_grpc.ConsentStub(channel)
        ledger = production_pb2_grpc.LedgerStub(channel)
        as_host = [("authorization", "Bearer " + host.access_token)]
        season = None
        for _ in range(50):
            try:
                season = episodes.CreateSeason(production_pb2.CreateSeasonRequest(number=int(time.time()) % 999 + 1,
                                                                                  title="bench"), metadata=as_host)
                break
            except grpc.RpcError:
                time.sleep(1.1)
        if season is None:
            sys.exit("no free season number")
        episode_ids = [episodes.CreateEpisode(production_pb2.CreateEpisodeRequest(season_id=season.id, number=n, title=f"E{n}"),
                                              metadata=as_host).id for n in range(1, 11)]
        ids = ",".join(f"'{i}'" for i in episode_ids)
        psql(f"""UPDATE production.episodes SET pitch_stage = 4, status = 6, published_at = now(), behind_the_glass_type = 1,
                        behind_the_glass_text = 'bench', view_count = 1000 WHERE id IN ({ids});
                 INSERT INTO production.ledger_entries (id, app, entry_type, category, amount_minor, currency, season_id, episode_id)
                 SELECT gen_random_uuid(), 'firstdate', 1 + i % 2,
                        (ARRAY['sponsorship','venue','talent','wardrobe','crew','equipment'])[1 + i % 6],
                        100 + i % 5000, CASE WHEN i % 10 = 0 THEN 'EUR' ELSE 'USD' END, '{season.id}',
                        (ARRAY[{ids}])[1 + i % 10]::uuid
                 FROM generate_series(1, {ENTRIES}) i;
                 ANALYZE production.ledger_entries;""")
        # A cast participant for the consent runs: an application selected into the first episode.
        participant = str(uuid.uuid4())
        psql(f"""UPDATE production.episodes SET status = 2 WHERE id = '{episode_ids[0]}';
                 WITH application AS (
                     INSERT INTO production.applications (id, app, account_id, status, steps, legal_name, submitted_at)
                     VALUES (gen_random_uuid(), 'firstdate', '{participant}', 5, '{{about_you}}', 'Bench Participant', now())
                     RETURNING id)
                 INSERT INTO production.cast_members (episode_id, account_id, application_id)
                 SELECT '{episode_ids[0]}', '{participant}', id FROM application""")
        text = consent.PublishConsentText(production_pb2.PublishConsentTextRequest(text=f"bench consent {uuid.uuid4()}"),
                                          metadata=as_host)
        pnl_request = production_pb2.GetProfitAndLossRequest(season_id=season.id)
        pnl = ledger.GetProfitAndLoss(pnl_request, metadata=as_host)
        if pnl.entry_count != ENTRIES:
            sys.exit(f"the P&L counted {pnl.entry_count} entries, not {ENTRIES}")
        membrane_request = production_pb2.ListEpisodesRequest(season_id=season.id)
        seen = episodes.ListEpisodes(membrane_request, metadata=[("authorization", "Bearer " + viewer.access_token)]).episodes
        if len(seen) != 9 or not all(view.HasField("published") for view in seen):
            sys.exit(f"the viewer saw {len(seen)} episodes, not the 9 published ones")
        capture_request = production_pb2.CaptureConsentRequest(
            episode_id=episode_ids[0], participant_account_id=participant, typed_name="Bench Participant",
            signature_media_id="bench-signature", consent_text_version=text.version_hash, device_info="h2load")
        consent.CaptureConsent(capture_request, metadata=as_host)

        runs = [
            ("GetProfitAndLoss, season of 10,000 entries (host)", "/rendezvous.production.v1.Ledger/GetProfitAndLoss",
             host.access_token, body_file(pnl_request)),
            ("ListEpisodes, the membrane: 9 published episodes (viewer)", "/rendezvous.production.v1.Episodes/ListEpisodes",
             viewer.access_token, body_file(membrane_request)),
            ("CaptureConsent, one insert-only record per call (host)", "/rendezvous.production.v1.Consent/CaptureConsent",
             host.access_token, body_file(capture_request)),
        ]
        print(f"production (release), {SECONDS} s per run, h2load -c 4, 2 cores shared with Postgres and h2load")
        for title, path, token, body in runs:
            print(title)
            print(f"{'streams':>7} {'req/s':>8} {'ok':>7} {'p50 ms':>8} {'p99 ms':>8} {'srv CPU':>8} {'RSS MiB':>8}")
            for streams in (16, 64):
                rps, ok, p50, p99, cpu, rss = h2load(production_port, path, token, body, streams, production.pid)
                print(f"{streams:>7} {rps:>8.0f} {ok:>7} {p50:>8.2f} {p99:>8.2f} {cpu:>7.0f}% {rss:>8.1f}")
        # h2load counts HTTP 200 (a gRPC error is one too): the answers must still be right.
        if ledger.GetProfitAndLoss(pnl_request, metadata=as_host).entry_count != ENTRIES:
            sys.exit("the P&L changed during the run")
        records = int(psql(f"SELECT count(*) FROM production.consent_records WHERE participant_id = '{participant}'"))
        print(f"consent records stored for the bench participant: {records}", flush=True)
    finally:
        for process in (production, identity):
            process.terminate()
            process.wait(timeout=15)


if __name__ == "__main__":
    main()
