#!/usr/bin/env python3
"""Media benchmark: the release `media` and `identity` executables on the local Postgres.

  - Uploads of 2 MiB photos (a PNG header around random bytes, so no two are alike and every
    upload is a new content-addressed file), CreateUpload then the Upload client stream in
    256 KiB chunks, from 16 concurrent grpcio streams for RV_BENCH_SECONDS: MB/s and the
    server's CPU. The client is Python (grpcio's C core moves the bytes).
  - Signed-URL GETs of one 2 MiB photo over h2c with h2load (4 connections, 16 and 64 streams):
    requests/s, MB/s, latency.
  - The reveal of a Momento event holding 5,000 photos (rows seeded with SQL; the reveal job
    runs every RV_MEDIA_REVEAL_INTERVAL_MS, 1000 by default): from the release time to
    EventRevealed in media's outbox, then the first page of the gallery (50 signed URLs).
  - Thumbnails: RV_BENCH_THUMB_PHOTOS real photos of about 2 MiB (12 MP JPEGs made with the
    `vips` command, noise over a gradient so they compress like a photo, EXIF orientation 6 and
    a GPS position), each a distinct content, uploaded while the rendition job is idle; then a
    fresh media starts and its job renders them (full size, 320 and 1080 px, on
    RV_MEDIA_RENDITION_THREADS threads): photos/s and thumbnails/s from its start to the last
    row ready, and the server's CPU and peak RSS meanwhile. The signed-URL GETs above fetch
    one of these photos (its full-size rendition) and its 320 px thumbnail.

The upload run's payloads are PNG headers around noise: media's rendition job fails each of
them quickly in the background (they do not decode), which the upload numbers include.

RV_BENCH_MEDIA_STORAGE=s3 runs the uploads and GETs with media's S3 backend against moto in
server mode (Tests/MediaTests/Fixtures/s3_server.py, signatures checked) instead of the local
folder, and skips the reveal and the thumbnails. moto is a Python server: it, not
media, sets the pace there.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))
from rpc_bench import cpu_seconds, free_port, latencies_us, parse_summary, percentile, rss_kib, wait_for_listening  # noqa: E402

PG = dict(host=os.environ.get("RV_PG_HOST", "127.0.0.1"), port=os.environ.get("RV_PG_PORT", "7432"),
          db=os.environ.get("RV_PG_DATABASE", "rendezvous"))
SECONDS = int(os.environ.get("RV_BENCH_SECONDS", "10"))
PHOTO = 2 * 1024 * 1024
CHUNK = 256 * 1024
STREAMS = 16
REVEAL_PHOTOS = 5_000
STORAGE = os.environ.get("RV_BENCH_MEDIA_STORAGE", "local")
THUMB_PHOTOS = int(os.environ.get("RV_BENCH_THUMB_PHOTOS", "40"))
RENDER_THREADS = os.environ.get("RV_MEDIA_RENDITION_THREADS", "2")


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
    from rendezvous.media.v1 import media_pb2, media_pb2_grpc, momento_pb2, momento_pb2_grpc
    return grpc, identity_pb2, identity_pb2_grpc, media_pb2, media_pb2_grpc, momento_pb2, momento_pb2_grpc


def start(name, env):
    process = subprocess.Popen([os.path.join(ROOT, ".build/release", name)], env=dict(os.environ, **env),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wait_for_listening(process)
    return process


def png(size):
    header = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 1600, 1200) + bytes([8, 6, 0, 0, 0])
    header += struct.pack(">I", 0)
    return header + os.urandom(size - len(header))


def start_s3():
    """moto with a bucket; returns the process and media's settings for it."""
    fixture = os.path.join(ROOT, "Tests/MediaTests/Fixtures/s3_server.py")
    process = subprocess.Popen([sys.executable, fixture], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    words = process.stdout.readline().decode().split()
    if len(words) != 5:
        sys.exit("the S3 server did not start (pip install 'moto[server]')")
    port, key, secret = int(words[2]), words[3], words[4]
    import boto3
    boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", aws_access_key_id=key, aws_secret_access_key=secret,
                 region_name="us-east-1").create_bucket(Bucket="media-bench")
    return process, {"RV_MEDIA_STORAGE": "s3", "RV_MEDIA_S3_ENDPOINT": f"http://127.0.0.1:{port}",
                     "RV_MEDIA_S3_BUCKET": "media-bench", "RV_MEDIA_S3_ACCESS_KEY_ID": key,
                     "RV_MEDIA_S3_SECRET_ACCESS_KEY": secret}


def camera_jpeg():
    """A 4032x3024 JPEG of about 2 MiB, made with the vips command, with the EXIF a phone writes."""
    folder = tempfile.mkdtemp(prefix="rv-bench-photo-")
    try:
        def vips(*args):
            subprocess.run(["vips", *args], check=True, capture_output=True, cwd=folder)
        for band in ("r", "g", "b"):
            vips("gaussnoise", f"{band}.v", "4032", "3024", "--sigma", "7", "--mean", "128")
        vips("bandjoin", "r.v g.v b.v", "noise.v")
        vips("xyz", "xy.v", "4032", "3024")
        vips("extract_band", "xy.v", "x.v", "0")
        vips("linear", "x.v", "ramp.v", "0.03", "0")
        vips("add", "noise.v", "ramp.v", "sum.v")
        vips("cast", "sum.v", "photo.v", "uchar")
        for quality in (85, 80, 75, 70):
            vips("copy", "photo.v", f"photo.jpg[Q={quality},strip]")
            with open(os.path.join(folder, "photo.jpg"), "rb") as f:
                data = f.read()
            if len(data) + 2048 <= PHOTO:
                break
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    # Exif APP1: IFD0 with Orientation 6 and a GPS IFD pointer; GPS IFD with latitude N 48/51/29.6.
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 2)
    tiff += struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0) + struct.pack(">HHII", 0x8825, 4, 1, 38) + struct.pack(">I", 0)
    tiff += struct.pack(">H", 2) + struct.pack(">HHI4s", 1, 2, 2, b"N\x00\x00\x00") + struct.pack(">HHII", 2, 5, 3, 68)
    tiff += struct.pack(">I", 0) + struct.pack(">6I", 48, 1, 51, 1, 296, 10)
    exif = b"Exif\x00\x00" + tiff
    return data[:2] + b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif + data[2:]


def distinct(jpeg):
    """The same photo as another content: a comment segment with a fresh id after SOI."""
    comment = uuid.uuid4().bytes
    return jpeg[:2] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + jpeg[2:]


def main():
    for name in ("identity", "media"):
        if not os.path.exists(os.path.join(ROOT, ".build/release", name)):
            sys.exit(f".build/release/{name} not built: swift build -c release")
    grpc, identity_pb2, identity_pb2_grpc, media_pb2, media_pb2_grpc, momento_pb2, momento_pb2_grpc = grpc_stubs()
    storage = tempfile.mkdtemp(prefix="rv-media-bench-")
    identity_port, media_port, media_admin = free_port(), free_port(), free_port()
    identity = start("identity", {"RV_IDENTITY_PORT": str(identity_port), "RV_IDENTITY_ADMIN_PORT": str(free_port()),
                                  "RV_PG_URL_IDENTITY": url("identity"), "RV_LOG_LEVEL": "warning"})
    s3, s3_settings = start_s3() if STORAGE == "s3" else (None, {})
    media = start("media", dict({"RV_MEDIA_PORT": str(media_port), "RV_MEDIA_ADMIN_PORT": str(media_admin),
                                 "RV_PG_URL_MEDIA": url("media"), "RV_LOG_LEVEL": "warning",
                                 "RV_IDENTITY_ADDRESS": f"127.0.0.1:{identity_port}", "RV_MEDIA_STORAGE_DIR": storage,
                                 "RV_MEDIA_URL_SECRET": uuid.uuid4().hex + uuid.uuid4().hex}, **s3_settings))
    try:
        session = identity_pb2_grpc.IdentityStub(grpc.insecure_channel(f"127.0.0.1:{identity_port}")).SignInAnonymously(
            identity_pb2.SignInAnonymouslyRequest(app="momento", device_name="bench"))
        bearer = [("authorization", "Bearer " + session.access_token)]
        options = [("grpc.max_send_message_length", 8 << 20), ("grpc.max_receive_message_length", 8 << 20)]

        def upload(stub, data, content_type="image/png"):
            status = stub.CreateUpload(media_pb2.CreateUploadRequest(kind=media_pb2.BLOB_KIND_PHOTO, content_type=content_type,
                                                                     size=len(data)), metadata=bearer)

            def chunks():
                for offset in range(0, len(data), CHUNK):
                    if offset == 0:
                        yield media_pb2.UploadChunk(upload_id=status.upload_id, offset=0, data=data[:CHUNK])
                    else:
                        yield media_pb2.UploadChunk(data=data[offset:offset + CHUNK])
            return stub.Upload(chunks(), metadata=bearer)

        # Uploads: 16 streams, each on a channel of its own, fresh bytes every time.
        first = upload(media_pb2_grpc.MediaStub(grpc.insecure_channel(f"127.0.0.1:{media_port}", options=options)), png(PHOTO))
        done, errors, lock = [0], [], threading.Lock()
        payloads = [png(PHOTO) for _ in range(64)]
        stop_at = time.time() + SECONDS

        def worker(index):
            stub = media_pb2_grpc.MediaStub(grpc.insecure_channel(f"127.0.0.1:{media_port}", options=options))
            n = index
            while time.time() < stop_at:
                data = bytearray(payloads[n % len(payloads)])
                data[-8:] = os.urandom(8)  # a new file each time
                try:
                    upload(stub, bytes(data))
                    with lock:
                        done[0] += 1
                except grpc.RpcError as error:
                    errors.append(error.details())
                n += STREAMS
        before = cpu_seconds(media.pid)
        started = time.time()
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(STREAMS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.time() - started
        cpu = (cpu_seconds(media.pid) - before) / elapsed * 100
        where = "S3 backend against moto (Python, same machine)" if s3 else "local folder"
        print(f"media (release), blobs: {where}; 2 cores shared with Postgres and the clients; {SECONDS} s per run")
        print(f"uploads of 2 MiB photos, {STREAMS} concurrent grpcio streams: {done[0]} in {elapsed:.1f} s = "
              f"{done[0] / elapsed:.1f}/s, {done[0] * PHOTO / elapsed / 1e6:.0f} MB/s, server CPU {cpu:.0f}%, "
              f"RSS {rss_kib(media.pid) / 1024:.0f} MiB, errors {len(errors)}{' (' + errors[0] + ')' if errors else ''}",
              flush=True)

        # Signed-URL GETs over h2c, of a real photo: its full-size rendition and its 320 px thumbnail.
        camera = camera_jpeg()
        real = upload(media_pb2_grpc.MediaStub(grpc.insecure_channel(f"127.0.0.1:{media_port}", options=options)),
                      distinct(camera), "image/jpeg")
        signed = media_pb2_grpc.MediaStub(grpc.insecure_channel(f"127.0.0.1:{media_port}")).GetDownloadURL(
            media_pb2.GetDownloadURLRequest(blob_id=real.blob_id, ttl_seconds=3600), metadata=bearer)
        for target, label in ((signed.url, "full-size rendition"), (signed.thumbnails[0].url, "320 px thumbnail")):
            # The first GET waits for the renditions; its size is what every later GET moves.
            fetched = subprocess.run(["curl", "-sS", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                                      f"http://127.0.0.1:{media_port}{target}"], capture_output=True, text=True, check=True)
            code, size = fetched.stdout.split()
            print(f"signed-URL GET of a {len(camera) / 2**20:.2f} MiB photo's {label} ({int(size) / 1e3:.1f} kB, HTTP {code}), "
                  "h2load -c 4 over h2c")
            print(f"{'streams':>7} {'req/s':>8} {'MB/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'srv CPU':>8}")
            for streams in (16, 64):
                log = tempfile.NamedTemporaryFile(delete=False).name
                before = cpu_seconds(media.pid)
                started = time.time()
                result = subprocess.run(["h2load", "-D", str(SECONDS), "-c", "4", "-m", str(streams // 4), "-t", "1",
                                         "--log-file", log, f"http://127.0.0.1:{media_port}{target}"],
                                        capture_output=True, text=True, timeout=SECONDS + 120)
                elapsed = time.time() - started
                cpu = (cpu_seconds(media.pid) - before) / elapsed * 100
                rps, ok, _ = parse_summary(result.stdout)
                values = latencies_us(log)
                print(f"{streams:>7} {rps:>8.0f} {rps * int(size) / 1e6:>8.1f} {percentile(values, 0.5) / 1000:>8.2f} "
                      f"{percentile(values, 0.99) / 1000:>8.2f} {cpu:>7.0f}%", flush=True)

        if s3:
            return
        # The reveal of an event with 5,000 photos.
        momento = momento_pb2_grpc.MomentoEventsStub(grpc.insecure_channel(f"127.0.0.1:{media_port}"))
        from google.protobuf.timestamp_pb2 import Timestamp
        release = Timestamp(seconds=int(time.time()) + 4)
        event = momento.CreateEvent(momento_pb2.CreateEventRequest(title="bench reveal", release_at=release,
                                                                   max_photos_per_member=100), metadata=bearer)
        psql(f"""WITH b AS (
                     INSERT INTO media.blobs (id, app, owner_id, kind, content_type, size, sha256)
                     SELECT gen_random_uuid(), 'momento', gen_random_uuid(), 1, 'image/png', {PHOTO},
                            encode(sha256(convert_to(i::text || '{event.event_id}', 'UTF8')), 'hex')
                     FROM generate_series(1, {REVEAL_PHOTOS}) i RETURNING id, owner_id)
                 INSERT INTO media.event_photos (id, event_id, account_id, blob_id)
                 SELECT gen_random_uuid(), '{event.event_id}', owner_id, id FROM b;
                 UPDATE media.events SET photo_count = photo_count + {REVEAL_PHOTOS} WHERE id = '{event.event_id}'""")
        while True:
            revealed = psql(f"""SELECT extract(epoch FROM o.occurred_at - e.release_at) FROM media.outbox o, media.events e
                                WHERE o.type = 'EventRevealed' AND o.aggregate_id = '{event.event_id}' AND e.id = '{event.event_id}'""")
            if revealed or time.time() > release.seconds + 60:
                break
            time.sleep(0.05)
        started = time.time()
        page = momento.ListEventPhotos(momento_pb2.ListEventPhotosRequest(event_id=event.event_id, page_size=50), metadata=bearer)
        gallery_ms = (time.time() - started) * 1000
        print(f"reveal of an event with {REVEAL_PHOTOS} photos: EventRevealed {float(revealed or 'nan'):.2f} s after the "
              f"release time (the job runs every second); first gallery page of {len(page.photos)} signed photos "
              f"{gallery_ms:.1f} ms", flush=True)

        # Thumbnails: photos uploaded while the job idles, then rendered by a fresh instance's job.
        media.terminate()
        media.wait(timeout=15)
        media_env = {"RV_MEDIA_PORT": str(media_port), "RV_MEDIA_ADMIN_PORT": str(media_admin), "RV_PG_URL_MEDIA": url("media"),
                     "RV_LOG_LEVEL": "warning", "RV_IDENTITY_ADDRESS": f"127.0.0.1:{identity_port}",
                     "RV_MEDIA_STORAGE_DIR": storage, "RV_MEDIA_URL_SECRET": uuid.uuid4().hex + uuid.uuid4().hex,
                     "RV_MEDIA_RENDITION_THREADS": RENDER_THREADS}
        # Its first pass takes whatever is pending (the upload run's payloads), then it sleeps a minute.
        media = start("media", dict(media_env, RV_MEDIA_RENDITION_INTERVAL_MS="60000"))
        while psql("SELECT count(*) FROM media.renditions WHERE status = 1") != "0":
            time.sleep(0.2)
        stub = media_pb2_grpc.MediaStub(grpc.insecure_channel(f"127.0.0.1:{media_port}", options=options))
        contents = [upload(stub, distinct(camera), "image/jpeg").sha256 for _ in range(THUMB_PHOTOS)]
        media.terminate()
        media.wait(timeout=15)
        listed = "ARRAY[" + ",".join(f"'{sha}'" for sha in contents) + "]"
        started = time.time()
        media = start("media", dict(media_env, RV_MEDIA_RENDITION_INTERVAL_MS="50"))
        peak = 0
        while True:
            peak = max(peak, rss_kib(media.pid))
            ready = int(psql(f"SELECT count(*) FROM media.renditions WHERE status <> 1 AND sha256 = ANY({listed})"))
            if ready == len(contents) or time.time() - started > 600:
                break
            time.sleep(0.05)
        elapsed = time.time() - started
        cpu = cpu_seconds(media.pid) / elapsed * 100
        outcome = psql(f"SELECT string_agg(status::text || ':' || n, ' ') FROM (SELECT status, count(*) n FROM media.renditions "
                       f"WHERE sha256 = ANY({listed}) GROUP BY status) s")
        print(f"thumbnails of {len(contents)} photos ({len(camera) / 2**20:.2f} MiB 4032x3024 JPEG, EXIF orientation 6), "
              f"{RENDER_THREADS} render threads: {elapsed:.1f} s from start = {len(contents) / elapsed:.2f} photos/s, "
              f"{2 * len(contents) / elapsed:.2f} thumbnails/s (+ the full-size rendition each), server CPU {cpu:.0f}%, "
              f"peak RSS {peak / 1024:.0f} MiB, statuses {outcome} (2 = ready)", flush=True)
    finally:
        for process in (media, identity):
            process.terminate()
            process.wait(timeout=15)
        if s3:
            s3.stdin.close()  # the fixture exits when its input closes
            s3.wait(timeout=15)
        shutil.rmtree(storage, ignore_errors=True)  # about 200 MB per second of uploads


if __name__ == "__main__":
    main()
