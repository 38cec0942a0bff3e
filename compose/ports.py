"""Ports on 127.0.0.1 for the services a script starts (compose/validate.py, the benchmarks)."""
import random
import socket

HANDED_OUT = set()


def free_port():
    """A port free now, below the kernel's ephemeral range: a port the kernel picks (a bind to 0)
    comes from that range, as do outgoing connections' local ports, so one of the services
    started first could take it before the service it was for binds it (media once failed so:
    "Address already in use"). Below the range, only a listener can. Each port is handed out
    once per process."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for _ in range(200 if low > 4096 else 0):
        port = random.randrange(max(1024, low - 12000), low)
        if port in HANDED_OUT:
            continue
        HANDED_OUT.add(port)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    HANDED_OUT.add(port)
    return port
