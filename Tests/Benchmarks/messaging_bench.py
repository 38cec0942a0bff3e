#!/usr/bin/env python3
"""Messaging benchmark: the release `messaging` and `identity` executables on the local Postgres.

RV_BENCH_MEMBERS (default 10,000) anonymous Swivo accounts, paired into conversations (seeded
with SQL, as matches would open them), each with its realtime stream open (50 a connection). Then for RV_BENCH_SECONDS, 32 and then 64
concurrent senders (RV_BENCH_SENDERS) send text messages (each member to their match):
messages/s accepted, and for every message the time from the send call to its arrival on the
recipient's stream (p50/p99), how many accepted messages never arrived (lost), arrived twice
(duplicated) or out of sequence order, and the CPU of the server and of Postgres (every process
of the cluster). Then pgbench runs the send path's SQL alone on the same conversations
(messaging_pgbench.py): Postgres's own ceiling for it on this box, in the same run. The client is identity-bench (RealtimeFanOutBench: our own gRPC
client, so the figure is the server's rather than a slow client's; an earlier Python grpc.aio
client holding the 1,000 streams took most of a core). It shares the 2 cores with the server
and Postgres.

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
from rpc_bench import free_port, percentile, wait_for_listening  # noqa: E402
import messaging_pgbench  # noqa: E402

PG = dict(host=os.environ.get("RV_PG_HOST", "127.0.0.1"), port=os.environ.get("RV_PG_PORT", "7432"),
          db=os.environ.get("RV_PG_DATABASE", "rendezvous"))
SECONDS = int(os.environ.get("RV_BENCH_SECONDS", "10"))
MEMBERS = int(os.environ.get("RV_BENCH_MEMBERS", "10000"))
SENDERS = os.environ.get("RV_BENCH_SENDERS", "32,64")


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
        # Admitted to ÉLITE (as the committee would), callers on BLACK; refreshed tokens say so.
        psql("UPDATE identity.accounts SET membership_status = 'active' WHERE id IN (%s);"
             % ",".join(f"'{s.account.id}'" for s in sessions)
             + "UPDATE identity.accounts SET tier = 'black' WHERE id IN (%s);"
             % ",".join(f"'{s.account.id}'" for s in callers))
        sessions = await asyncio.gather(*[accounts.RefreshSession(identity_pb2.RefreshSessionRequest(
            refresh_token=s.refresh_token)) for s in sessions])
        callers = sessions[0::2]
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
    if sys.argv[1:] == ["calls"]:
        for name in ("identity", "messaging"):
            if not os.path.exists(os.path.join(ROOT, ".build", BUILD, name)):
                sys.exit(f".build/{BUILD}/{name} not built: swift build -c {BUILD}")
        main_calls()
        return 0
    for name in ("identity", "messaging", "identity-bench"):
        if not os.path.exists(os.path.join(ROOT, ".build", BUILD, name)):
            sys.exit(f".build/{BUILD}/{name} not built: swift build -c {BUILD}")
    raise_file_limit(MEMBERS // 50 * 2 + 1000)
    identity_port, messaging_port = free_port(), free_port()
    identity = start("identity", {"RV_IDENTITY_PORT": str(identity_port), "RV_IDENTITY_ADMIN_PORT": str(free_port()),
                                  "RV_PG_URL_IDENTITY": url("identity"), "RV_LOG_LEVEL": "warning"})
    messaging = start("messaging", {"RV_MESSAGING_PORT": str(messaging_port), "RV_MESSAGING_ADMIN_PORT": str(free_port()),
                                    "RV_PG_URL_MESSAGING": url("messaging"), "RV_LOG_LEVEL": "warning",
                                    "RV_IDENTITY_ADDRESS": f"127.0.0.1:{identity_port}",
                                    "RV_DISCOVERY_ADDRESS": f"127.0.0.1:{free_port()}"})
    try:
        print("messaging (release) and identity (release) driven by identity-bench (release, our gRPC client); "
              "the 2 cores are shared with Postgres and the client", flush=True)
        result = subprocess.run([os.path.join(ROOT, ".build", BUILD, "identity-bench"), "--port", str(identity_port),
                                 "--only", "none", "--warmup", "0", "--seconds", str(SECONDS),
                                 "--messaging-port", str(messaging_port), "--messaging-pid", str(messaging.pid),
                                 "--admin-url", url("admin"), "--messaging-members", str(MEMBERS),
                                 "--messaging-senders", SENDERS, *postmaster_pid()], timeout=900,
                                stdout=subprocess.PIPE, text=True)
        print(result.stdout, end="", flush=True)
    finally:
        for process in (messaging, identity):
            process.terminate()
            process.wait(timeout=15)
    if os.environ.get("RV_BENCH_PGBENCH", "1") != "0":
        has_batches = psql("SELECT to_regproc('messaging.send_messages') IS NOT NULL") == "t"
        messaging_pgbench.run(url("admin"), messaging_pgbench.shapes(has_batches))
    return result.returncode


def raise_file_limit(wanted):
    """Streams share connections (50 on one), so the client and the server each hold about
    MEMBERS / 50 sockets: raise the soft open-files limit to the hard one (inherited by the
    processes started here) and say so when it is below `wanted`."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard != resource.RLIM_INFINITY and hard < wanted:
        print(f"open files limit {hard} < {wanted}: raise it (ulimit -n) for {MEMBERS} streams", flush=True)


def postmaster_pid():
    """`--postgres-pid` with the postmaster's pid, from its data folder's postmaster.pid (nothing
    when it cannot be read: the CPU column then shows -)."""
    try:
        data = psql("SELECT setting FROM pg_settings WHERE name = 'data_directory'")
        with open(os.path.join(data, "postmaster.pid")) as f:
            return ["--postgres-pid", f.readline().strip()]
    except (OSError, subprocess.CalledProcessError):
        return []


if __name__ == "__main__":
    sys.exit(main())
