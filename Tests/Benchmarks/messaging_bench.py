#!/usr/bin/env python3
"""Messaging benchmark: the release `messaging` and `identity` executables on the local Postgres.

1,000 anonymous Swivo accounts, paired into 500 conversations (seeded with SQL, as matches
would open them), each with its realtime stream open (Subscribe, grpc.aio, one process). Then
for RV_BENCH_SECONDS, 32 concurrent senders send text messages (each member to their match):
messages/s accepted, and for every message the time from the send call to its arrival on the
recipient's stream (p50/p99). The client (Python, holding 1,000 streams) shares the 2 cores
with the server and Postgres.

`messaging_bench.py calls`: video call signaling across two messaging instances. RV_BENCH_CALLS
(default 20) ÉLITE BLACK members each ring their match on instance A, the match joins on
instance B and accepts; then every caller sends ICE candidates one after another for
RV_BENCH_SECONDS, each waiting for the callee's stream to receive it: the relay latency
(caller's send → callee's receipt, through Postgres and NOTIFY) p50/p99, and signals/s.
RV_BENCH_BUILD=debug runs the debug executables instead of the release ones.
"""
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))
from rpc_bench import cpu_seconds, free_port, percentile, rss_kib, wait_for_listening  # noqa: E402

PG = dict(host=os.environ.get("RV_PG_HOST", "127.0.0.1"), port=os.environ.get("RV_PG_PORT", "7432"),
          db=os.environ.get("RV_PG_DATABASE", "rendezvous"))
SECONDS = int(os.environ.get("RV_BENCH_SECONDS", "10"))
MEMBERS = 1_000
SENDERS = 32


def url(role):
    password = os.environ.get(f"RV_PG_PASSWORD_{role.upper()}", f"rv_{role}_local")
    return f"postgresql://rv_{role}:{password}@{PG['host']}:{PG['port']}/{PG['db']}"


def psql(sql):
    return subprocess.run(["psql", url("admin"), "-qAt", "-v", "ON_ERROR_STOP=1"], input=sql, check=True,
                          capture_output=True, text=True).stdout.strip()


def grpc_stubs():
    out = tempfile.mkdtemp(prefix="rv-bench-protos-")
    subprocess.run(["bash", os.path.join(ROOT, "Tests/InteropTests/Fixtures/gen_protos.sh"), out], check=True,
                   capture_output=True)
    sys.path.insert(0, out)
    import grpc
    from rendezvous.identity.v1 import identity_pb2, identity_pb2_grpc
    from rendezvous.messaging.v1 import messaging_pb2, messaging_pb2_grpc, realtime_pb2, realtime_pb2_grpc
    return grpc, identity_pb2, identity_pb2_grpc, messaging_pb2, messaging_pb2_grpc, realtime_pb2, realtime_pb2_grpc


BUILD = os.environ.get("RV_BENCH_BUILD", "release")


def start(name, env):
    process = subprocess.Popen([os.path.join(ROOT, ".build", BUILD, name)], env=dict(os.environ, **env),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wait_for_listening(process)
    return process


async def run(grpc, identity_pb2, identity_pb2_grpc, messaging_pb2, messaging_pb2_grpc, realtime_pb2, realtime_pb2_grpc,
              identity_port, messaging_port, messaging_pid):
    import grpc.aio
    async with grpc.aio.insecure_channel(f"127.0.0.1:{identity_port}") as channel:
        accounts = identity_pb2_grpc.IdentityStub(channel)
        sessions = []
        for start_index in range(0, MEMBERS, 50):
            batch = [accounts.SignInAnonymously(identity_pb2.SignInAnonymouslyRequest(app="swivo", device_name="bench"))
                     for _ in range(min(50, MEMBERS - start_index))]
            sessions += await asyncio.gather(*batch)
    ids = [s.account.id for s in sessions]
    tokens = {s.account.id: s.access_token for s in sessions}
    pairs = [(ids[i], ids[i + 1], str(uuid.uuid4())) for i in range(0, MEMBERS, 2)]
    values = ",".join(f"('{c}', 'swivo', now(), now())" for _, _, c in pairs)
    members = ",".join(f"('{a}', '{c}', '{b}'), ('{b}', '{c}', '{a}')" for a, b, c in pairs)
    psql(f"INSERT INTO messaging.conversations (id, app, matched_at, last_activity_at) VALUES {values};"
         f"INSERT INTO messaging.members (account_id, conversation_id, other_id) VALUES {members};")

    sent_at = {}
    latencies = []
    # Each connection carries at most 100 concurrent streams (the server's HTTP/2 setting).
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{messaging_port}", options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(MEMBERS // 50)]
    ready = asyncio.Event()
    ready_count = [0]

    async def subscribe(index, account):
        stub = realtime_pb2_grpc.RealtimeStub(channels[index % len(channels)])
        call = stub.Subscribe(realtime_pb2.SubscribeRequest(after_cursor=0),
                              metadata=[("authorization", "Bearer " + tokens[account])])
        async for event in call:
            which = event.WhichOneof("event")
            if which == "ready":
                ready_count[0] += 1
                if ready_count[0] == MEMBERS:
                    ready.set()
            elif which == "message" and event.message.message.sender_id != account:
                started = sent_at.pop(event.message.message.client_message_id, None)
                if started is not None:
                    latencies.append(time.perf_counter() - started)

    streams = [asyncio.ensure_future(subscribe(i, account)) for i, account in enumerate(ids)]
    try:
        await asyncio.wait_for(ready.wait(), timeout=120)
    except asyncio.TimeoutError:
        failed = [task.exception() for task in streams if task.done() and task.exception()]
        sys.exit(f"only {ready_count[0]} of {MEMBERS} streams became ready; {len(failed)} failed: {failed[:1]}")
    accepted = [0]
    errors = []
    stop_at = time.time() + SECONDS

    async def sender(index):
        stub = messaging_pb2_grpc.MessagingStub(channels[index % len(channels)])
        n = index
        while time.time() < stop_at:
            a, b, conversation = pairs[n % len(pairs)]
            who = a if (n // len(pairs)) % 2 == 0 else b
            key = uuid.uuid4().hex
            sent_at[key] = time.perf_counter()
            try:
                await stub.SendMessage(messaging_pb2.SendMessageRequest(conversation_id=conversation, client_message_id=key,
                                                                        text="hello from the bench"),
                                       metadata=[("authorization", "Bearer " + tokens[who])])
                accepted[0] += 1
            except grpc.RpcError as error:
                errors.append(error.details())
                sent_at.pop(key, None)
            n += SENDERS

    before = cpu_seconds(messaging_pid)
    started = time.time()
    await asyncio.gather(*[sender(i) for i in range(SENDERS)])
    elapsed = time.time() - started
    cpu = (cpu_seconds(messaging_pid) - before) / elapsed * 100
    await asyncio.sleep(2)  # the last deliveries
    for stream in streams:
        stream.cancel()
    for channel in channels:
        await channel.close()
    latencies.sort()
    print(f"messaging (release), {MEMBERS} open realtime streams, {SENDERS} concurrent senders, {SECONDS} s; "
          f"2 cores shared with Postgres and the Python client")
    print(f"sent {accepted[0]} = {accepted[0] / elapsed:.0f} messages/s, delivered {len(latencies)} "
          f"(undelivered {len(sent_at)}), send→delivery p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
          f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms, server CPU {cpu:.0f}%, RSS {rss_kib(messaging_pid) / 1024:.0f} MiB, "
          f"errors {len(errors)}{' (' + errors[0] + ')' if errors else ''}", flush=True)


async def run_calls(grpc, identity_port, ports):
    import grpc.aio
    from rendezvous.identity.v1 import identity_pb2, identity_pb2_grpc
    from rendezvous.messaging.v1 import calls_pb2, calls_pb2_grpc
    count = int(os.environ.get("RV_BENCH_CALLS", "20"))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{identity_port}") as channel:
        accounts = identity_pb2_grpc.IdentityStub(channel)
        sessions = await asyncio.gather(*[accounts.SignUpWithEmail(identity_pb2.SignUpWithEmailRequest(
            app="elite", email=f"callbench-{uuid.uuid4().hex}@example.com", password="correct horse battery staple",
            device_name="bench")) for _ in range(2 * count)])
        callers = sessions[0::2]
        psql("UPDATE identity.accounts SET tier = 'black' WHERE id IN (%s);"
             % ",".join(f"'{s.account.id}'" for s in callers))
        callers = await asyncio.gather(*[accounts.RefreshSession(identity_pb2.RefreshSessionRequest(
            refresh_token=s.refresh_token)) for s in callers])
    callees = sessions[1::2]
    pairs = [(a, b, str(uuid.uuid4())) for a, b in zip(callers, callees)]
    values = ",".join(f"('{c}', 'elite', now(), now())" for _, _, c in pairs)
    members = ",".join(f"('{a.account.id}', '{c}', '{b.account.id}'), ('{b.account.id}', '{c}', '{a.account.id}')"
                       for a, b, c in pairs)
    psql(f"INSERT INTO messaging.conversations (id, app, matched_at, last_activity_at) VALUES {values};"
         f"INSERT INTO messaging.members (account_id, conversation_id, other_id) VALUES {members};")
    channel_a = grpc.aio.insecure_channel(f"127.0.0.1:{ports[0]}")
    channel_b = grpc.aio.insecure_channel(f"127.0.0.1:{ports[1]}")
    latencies = []
    stop_at = [0.0]

    async def call(caller, callee, conversation, started):
        caller_call = calls_pb2_grpc.CallsStub(channel_a).Signal(
            metadata=[("authorization", "Bearer " + caller.access_token)])
        await caller_call.write(calls_pb2.SignalRequest(ring=calls_pb2.CallRing(conversation_id=conversation)))
        ringing = await caller_call.read()
        callee_call = calls_pb2_grpc.CallsStub(channel_b).Signal(
            metadata=[("authorization", "Bearer " + callee.access_token)])
        await callee_call.write(calls_pb2.SignalRequest(join=calls_pb2.CallJoin(call_id=ringing.call.call_id)))
        await callee_call.read()
        await callee_call.write(calls_pb2.SignalRequest(accept=calls_pb2.CallAccept()))
        while (await caller_call.read()).call.state != calls_pb2.CALL_STATE_ACCEPTED:
            pass
        await callee_call.read()
        started.set()
        await go.wait()
        n = 0
        while time.time() < stop_at[0]:
            n += 1
            sent = time.perf_counter()
            await caller_call.write(calls_pb2.SignalRequest(ice_candidate=calls_pb2.IceCandidate(
                candidate=f"candidate:{n} 1 udp 2122260223 192.0.2.1 {50000 + n % 10000} typ host", sdp_mid="0")))
            received = await callee_call.read()
            latencies.append(time.perf_counter() - sent)
            assert received.sequence == n, (received, n)
        await caller_call.write(calls_pb2.SignalRequest(hang_up=calls_pb2.CallHangUp()))
        caller_call.cancel()
        callee_call.cancel()

    go = asyncio.Event()
    ready = [asyncio.Event() for _ in pairs]
    tasks = [asyncio.ensure_future(call(a, b, c, r)) for (a, b, c), r in zip(pairs, ready)]
    await asyncio.wait_for(asyncio.gather(*[r.wait() for r in ready]), timeout=60)
    started = time.time()
    stop_at[0] = started + SECONDS
    go.set()
    await asyncio.gather(*tasks)
    elapsed = time.time() - started
    await channel_a.close()
    await channel_b.close()
    latencies.sort()
    print(f"call signaling ({BUILD}), {count} calls rung on instance A and answered on instance B, each caller "
          f"sending ICE candidates one at a time for {SECONDS} s; 2 cores shared with Postgres and the Python client")
    print(f"relayed {len(latencies)} = {len(latencies) / elapsed:.0f} signals/s, send→receipt p50 "
          f"{percentile(latencies, 0.5) * 1000:.1f} ms, p99 {percentile(latencies, 0.99) * 1000:.1f} ms", flush=True)


def main_calls():
    stubs = grpc_stubs()
    identity_port, ports = free_port(), [free_port(), free_port()]
    identity = start("identity", {"RV_IDENTITY_PORT": str(identity_port), "RV_IDENTITY_ADMIN_PORT": str(free_port()),
                                  "RV_PG_URL_IDENTITY": url("identity"), "RV_LOG_LEVEL": "warning"})
    processes = [identity]
    try:
        for port in ports:
            processes.append(start("messaging", {
                "RV_MESSAGING_PORT": str(port), "RV_MESSAGING_ADMIN_PORT": str(free_port()),
                "RV_PG_URL_MESSAGING": url("messaging"), "RV_LOG_LEVEL": "warning",
                "RV_IDENTITY_ADDRESS": f"127.0.0.1:{identity_port}", "RV_DISCOVERY_ADDRESS": f"127.0.0.1:{free_port()}",
                "RV_CALL_MAX_SIGNALS": "100000", "RV_CALL_RING_SECONDS": "600"}))
        asyncio.run(run_calls(stubs[0], identity_port, ports))
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=15)


def main():
    for name in ("identity", "messaging"):
        if not os.path.exists(os.path.join(ROOT, ".build", BUILD, name)):
            sys.exit(f".build/{BUILD}/{name} not built: swift build -c {BUILD}")
    if sys.argv[1:] == ["calls"]:
        main_calls()
        return
    stubs = grpc_stubs()
    identity_port, messaging_port = free_port(), free_port()
    identity = start("identity", {"RV_IDENTITY_PORT": str(identity_port), "RV_IDENTITY_ADMIN_PORT": str(free_port()),
                                  "RV_PG_URL_IDENTITY": url("identity"), "RV_LOG_LEVEL": "warning"})
    messaging = start("messaging", {"RV_MESSAGING_PORT": str(messaging_port), "RV_MESSAGING_ADMIN_PORT": str(free_port()),
                                    "RV_PG_URL_MESSAGING": url("messaging"), "RV_LOG_LEVEL": "warning",
                                    "RV_IDENTITY_ADDRESS": f"127.0.0.1:{identity_port}",
                                    "RV_DISCOVERY_ADDRESS": f"127.0.0.1:{free_port()}"})
    try:
        asyncio.run(run(*stubs, identity_port, messaging_port, messaging.pid))
    finally:
        for process in (messaging, identity):
            process.terminate()
            process.wait(timeout=15)


if __name__ == "__main__":
    main()
