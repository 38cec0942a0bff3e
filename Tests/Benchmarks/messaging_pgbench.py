"""Postgres's own ceiling for the messaging send path's SQL, by pgbench, on the conversations the
messaging benchmark seeded (run after it, with the services stopped, so Postgres has the 2 cores
to itself but for pgbench).

Two shapes, each as the service sends it:
- one send per transaction (before batching): BEGIN; lock the conversation and read the caller's
  membership; look up the client message id; number and insert the message; the two realtime
  outbox rows (recipient and sender); COMMIT.
- a batch of BATCH sends in one statement, its own transaction (group commit, as
  MessageSendStore sends it): messaging.send_messages with BATCH sends and the 2×BATCH outbox
  rows computed from what it stored.
Each transaction first picks its conversations from a lookup table (one more small statement
than the service runs). Prints transactions/s and messages/s.
"""
import os
import subprocess
import sys
import tempfile

PG_BIN = "/usr/lib/postgresql/15/bin"
BATCH = int(os.environ.get("RV_BENCH_PGBENCH_BATCH", "32"))

# Outbox.nextCursor, as the service sends it.
NEXT_CURSOR = """(pg_current_xact_id()::text::bigint << 20)
  | set_config('rendezvous.outbox_rank',
      CASE WHEN coalesce(nullif(current_setting('rendezvous.outbox_rank', true), ''), '0')::bigint + 1 < 1048576
           THEN (coalesce(nullif(current_setting('rendezvous.outbox_rank', true), ''), '0')::bigint + 1)::text
           ELSE ('a transaction may append at most 1048575 outbox events, not '
                 || coalesce(nullif(current_setting('rendezvous.outbox_rank', true), ''), '0')::bigint + 1)::bigint::text
      END, true)::bigint"""
# A realtime event's payload of the real one's size (140 bytes) that still decodes: one field
# unknown to RealtimeEvent (number 1000, 136 bytes), so the services pass over these events like
# any other. (Bytes that were no message at all stopped messaging's push planning on this
# database until it learnt to skip such events; see UndecodableEvents.)
PAYLOAD = "(decode('c23e8801', 'hex') || decode(repeat('ab', 136), 'hex'))"

ONE_SEND = f"""\\set n random(1, :members)
SELECT conversation_id AS c, account_id AS s, other_id AS o FROM public.rv_msg_bench_members WHERE n = :n \\gset
BEGIN;
SELECT c.app, c.closed_at IS NOT NULL, c.last_sequence, m.other_id, m.read_through FROM messaging.conversations c LEFT JOIN messaging.members m ON m.conversation_id = c.id AND m.account_id = :s::uuid WHERE c.id = :c::uuid FOR UPDATE OF c;
SELECT x.id FROM messaging.messages x WHERE x.conversation_id = :c::uuid AND x.sender_id = :s::uuid AND x.client_message_id = md5(random()::text);
WITH next AS (UPDATE messaging.conversations SET last_sequence = last_sequence + 1, last_activity_at = clock_timestamp() WHERE id = :c::uuid RETURNING last_sequence, last_activity_at) INSERT INTO messaging.messages AS x (id, conversation_id, sequence, sender_id, client_message_id, text, media_id, sent_at) SELECT gen_random_uuid(), :c, next.last_sequence, :s, md5(random()::text), 'hello from pgbench', NULL, next.last_activity_at FROM next RETURNING x.id;
INSERT INTO messaging.realtime (cursor, id, type, app, aggregate_id, payload) SELECT {NEXT_CURSOR}, gen_random_uuid(), 'MessageReceived', 'swivo', e.a, {PAYLOAD} FROM unnest(ARRAY[:o::text, :s::text]) AS e(a) RETURNING cursor;
COMMIT;
"""

BATCHED = f"""\\set n random(1, :members - {BATCH})
SELECT array_agg(conversation_id ORDER BY n) AS cs, array_agg(account_id ORDER BY n) AS ss FROM public.rv_msg_bench_members WHERE n >= :n AND n < :n + {BATCH} \\gset
WITH sent AS (SELECT * FROM messaging.send_messages(ARRAY(SELECT gen_random_uuid() FROM generate_series(1, {BATCH})), :cs::uuid[], :ss::uuid[], array_fill('swivo'::text, ARRAY[{BATCH}]), ARRAY(SELECT md5(random()::text) FROM generate_series(1, {BATCH})), array_fill('hello from pgbench'::text, ARRAY[{BATCH}]), array_fill(NULL::uuid, ARRAY[{BATCH}]))), stored AS MATERIALIZED (SELECT r_ordinal, r_other, (:ss::uuid[])[r_ordinal] AS sender, 'swivo' AS app, {PAYLOAD} || messaging.realtime_message_tail(r_sequence, r_sent_at) AS payload FROM sent WHERE r_outcome = 0), events AS (INSERT INTO messaging.realtime (cursor, id, type, app, aggregate_id, payload) SELECT {NEXT_CURSOR}, e.id, e.type, e.app, e.aggregate_id, e.payload FROM (SELECT gen_random_uuid() AS id, 'MessageReceived' AS type, s.app, r.recipient::text AS aggregate_id, s.payload FROM stored s CROSS JOIN LATERAL (VALUES (1, s.r_other), (2, s.sender)) AS r(rank, recipient) ORDER BY s.r_ordinal, r.rank) e) SELECT r_outcome, r_id, r_sequence, r_text, r_media, r_sent_at FROM sent ORDER BY r_ordinal;
"""


def run(admin_url, shapes):
    """Runs each (name, script, messages per transaction, clients) of `shapes` for RV_BENCH_SECONDS."""
    seconds = os.environ.get("RV_BENCH_SECONDS", "10")
    subprocess.run(["psql", admin_url, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", """
        DROP TABLE IF EXISTS public.rv_msg_bench_members;
        CREATE TABLE public.rv_msg_bench_members AS
            SELECT row_number() OVER (ORDER BY m.conversation_id, m.account_id)::int AS n, m.conversation_id, m.account_id,
                   m.other_id
            FROM messaging.members m JOIN messaging.conversations c ON c.id = m.conversation_id
            WHERE c.app = 'swivo' AND c.closed_at IS NULL;
        ALTER TABLE public.rv_msg_bench_members ADD PRIMARY KEY (n);
        ANALYZE public.rv_msg_bench_members;"""], check=True, capture_output=True)
    members = subprocess.run(["psql", admin_url, "-qAt", "-c", "SELECT count(*) FROM public.rv_msg_bench_members"],
                             check=True, capture_output=True, text=True).stdout.strip()
    print(f"\npgbench: the send path's SQL alone on the same cluster, {members} members, {seconds} s each, "
          f"-M prepared, services stopped", flush=True)
    print("shape                                clients      tps    msgs/s  latency ms")
    work = tempfile.mkdtemp(prefix="rv-msg-pgbench-")
    try:
        for name, script, per_transaction, clients in shapes:
            path = os.path.join(work, "script.sql")
            with open(path, "w") as f:
                f.write(script)
            result = subprocess.run([f"{PG_BIN}/pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", "2",
                                     "-T", seconds, "-D", f"members={members}", "-f", path, admin_url],
                                    capture_output=True, text=True)
            tps = latency = None
            for line in result.stdout.splitlines():
                if line.startswith("tps ="):
                    tps = float(line.split()[2])
                if line.startswith("latency average"):
                    latency = float(line.split()[3])
            if tps is None:
                print(f"{name:36} {clients:7d}  failed: {result.stderr.strip()[-300:]}", flush=True)
                continue
            print(f"{name:36} {clients:7d} {tps:8.0f} {tps * per_transaction:9.0f} {latency:11.2f}", flush=True)
    finally:
        subprocess.run(["psql", admin_url, "-qAt", "-c", "DROP TABLE IF EXISTS public.rv_msg_bench_members"],
                       capture_output=True)


def shapes(batched_available):
    """The shapes to run: one send per transaction at the bench's sender counts, and batches
    (when `messaging.send_messages` exists) at the service's runners (RV_MESSAGING_SEND_RUNNERS, 1)
    and more."""
    runners = int(os.environ.get("RV_MESSAGING_SEND_RUNNERS", "1"))
    result = [("one send a transaction", ONE_SEND, 1, 32), ("one send a transaction", ONE_SEND, 1, 64)]
    if batched_available:
        result += [(f"batches of {BATCH}, one statement", BATCHED, BATCH, clients) for clients in sorted({runners, 3, 8})]
    return result


if __name__ == "__main__":
    url = sys.argv[1]
    has = subprocess.run(["psql", url, "-qAt", "-c", "SELECT to_regproc('messaging.send_messages') IS NOT NULL"],
                         capture_output=True, text=True).stdout.strip() == "t"
    run(url, shapes(has))
