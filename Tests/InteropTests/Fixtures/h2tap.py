"""A transparent TCP relay that watches the HTTP/2 frames of gRPC connections.

grpcio hides two facts the interop cases need: whether a received gRPC message
had its compressed-flag byte set, and (on the server) whether a request message
arrived compressed. This relay sits between a peer and grpcio, forwards every
byte unchanged, and parses the frame layer on the way:

  * DATA frames are split into gRPC length-prefixed messages; for each message
    `on_message(stream_id, index, compressed_flag, length)` is called *before*
    the frame is forwarded.
  * Optionally (`inject`), one extra header is appended to the first header
    block of each stream (a HPACK "literal without indexing, new name", which
    leaves the dynamic table alone). The interop server uses it to tell its
    handlers which (connection, stream) they serve.

It can also terminate TLS on the listening side and/or speak TLS upstream, both
with ALPN "h2". Only the standard library is used. If the byte stream stops
parsing as HTTP/2, the relay keeps forwarding bytes verbatim.
"""

import itertools
import select
import socket
import ssl
import threading

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_DATA, _HEADERS, _RST_STREAM, _CONTINUATION = 0x0, 0x1, 0x3, 0x9
_END_STREAM, _END_HEADERS, _PADDED, _PRIORITY = 0x1, 0x4, 0x8, 0x20
_MAX_FRAME = 16384  # SETTINGS_MAX_FRAME_SIZE every peer must accept


def hpack_literal(name: bytes, value: bytes) -> bytes:
    """HPACK literal header field without indexing, new name, no Huffman."""

    def string(s):
        n = len(s)
        if n < 127:
            return bytes([n]) + s
        out = bytearray([127])
        n -= 127
        while n >= 128:
            out.append((n & 0x7F) | 0x80)
            n >>= 7
        out.append(n)
        return bytes(out) + s

    return b"\x00" + string(name) + string(value)


class FrameTap:
    """Incremental parser of one direction of an HTTP/2 connection."""

    def __init__(self, expect_preface, on_message=None, inject=None):
        self._buf = bytearray()
        self._preface_left = len(PREFACE) if expect_preface else 0
        self._on_message = on_message
        self._inject = inject
        self._streams = {}  # sid -> [prefix bytearray, body bytes remaining, message count]
        self._seen_headers = set()
        self._pending_inject = None  # (sid, bytes) waiting for END_HEADERS
        self.broken = False

    def feed(self, data: bytes) -> bytes:
        """Consume bytes read from the wire; return the bytes to forward."""
        if self.broken:
            return data
        self._buf += data
        out = bytearray()
        if self._preface_left:
            n = min(self._preface_left, len(self._buf))
            out += self._buf[:n]
            del self._buf[:n]
            self._preface_left -= n
            if self._preface_left:
                return bytes(out)
        while len(self._buf) >= 9:
            length = int.from_bytes(self._buf[0:3], "big")
            if len(self._buf) < 9 + length:
                break
            frame = bytes(self._buf[: 9 + length])
            del self._buf[: 9 + length]
            try:
                out += self._frame(frame)
            except Exception:  # noqa: BLE001 - never break the relay
                self.broken = True
                out += frame
                out += self._buf
                self._buf.clear()
                break
        return bytes(out)

    def _frame(self, frame: bytes) -> bytes:
        ftype, flags = frame[3], frame[4]
        sid = int.from_bytes(frame[5:9], "big") & 0x7FFFFFFF
        payload = frame[9:]
        if ftype == _DATA and sid:
            body = payload
            if flags & _PADDED:
                pad = payload[0]
                body = payload[1 : len(payload) - pad]
            self._data(sid, body)
            if flags & _END_STREAM:
                self._streams.pop(sid, None)
            return frame
        if ftype == _RST_STREAM:
            self._streams.pop(sid, None)
            return frame
        if ftype == _HEADERS and sid:
            if flags & _END_STREAM:
                self._streams.pop(sid, None)
            if self._inject is None or sid in self._seen_headers:
                return frame
            self._seen_headers.add(sid)
            extra = self._inject(sid)
            if not extra:
                return frame
            if not flags & _END_HEADERS:
                self._pending_inject = (sid, extra)
                return frame
            return self._rebuild_headers(frame, flags, sid, payload, extra)
        if ftype == _CONTINUATION and self._pending_inject and self._pending_inject[0] == sid:
            if flags & _END_HEADERS:
                extra = self._pending_inject[1]
                self._pending_inject = None
                if len(payload) + len(extra) <= _MAX_FRAME:
                    return _frame_bytes(ftype, flags, sid, payload + extra)
            return frame
        return frame

    @staticmethod
    def _rebuild_headers(frame, flags, sid, payload, extra):
        pos, end = 0, len(payload)
        if flags & _PADDED:
            pos, end = 1, len(payload) - payload[0]
        prio = b""
        if flags & _PRIORITY:
            prio, pos = payload[pos : pos + 5], pos + 5
        new = prio + payload[pos:end] + extra
        if len(new) > _MAX_FRAME:
            return frame
        return _frame_bytes(_HEADERS, flags & ~_PADDED, sid, new)

    def _data(self, sid, body):
        st = self._streams.get(sid)
        if st is None:
            st = self._streams[sid] = [bytearray(), 0, 0]
        i, n = 0, len(body)
        while i < n:
            if st[1]:
                take = min(st[1], n - i)
                st[1] -= take
                i += take
                continue
            need = 5 - len(st[0])
            st[0] += body[i : i + need]
            i += min(need, n - i)
            if len(st[0]) == 5:
                flag = st[0][0]
                length = int.from_bytes(st[0][1:5], "big")
                if self._on_message is not None:
                    self._on_message(sid, st[2], flag, length)
                st[2] += 1
                st[0] = bytearray()
                st[1] = length


def _frame_bytes(ftype, flags, sid, payload):
    return len(payload).to_bytes(3, "big") + bytes([ftype, flags]) + sid.to_bytes(4, "big") + payload


class TapProxy:
    """Listens on (host, port) and relays each connection to `upstream`.

    make_taps(conn_id) -> (client_to_server FrameTap, server_to_client FrameTap).
    listen_ssl: an ssl.SSLContext (server side) to terminate TLS, or None.
    upstream_ssl: an ssl.SSLContext (client side) to speak TLS upstream, or None;
    upstream_sni: the name to verify/send as SNI.
    """

    def __init__(self, upstream, make_taps, host="127.0.0.1", port=0,
                 listen_ssl=None, upstream_ssl=None, upstream_sni=None):
        self._upstream = upstream
        self._make_taps = make_taps
        self._listen_ssl = listen_ssl
        self._upstream_ssl = upstream_ssl
        self._upstream_sni = upstream_sni
        self._ids = itertools.count(1)
        self._closed = False
        self._sock = socket.create_server((host, port), reuse_port=False, backlog=128)
        self.port = self._sock.getsockname()[1]
        self._conns = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept_loop, name="h2tap-accept", daemon=True).start()

    def close(self):
        self._closed = True
        try:
            self._sock.close()
        except OSError:
            pass
        with self._lock:
            conns = list(self._conns)
        for s in conns:
            try:
                s.close()
            except OSError:
                pass

    def _accept_loop(self):
        while not self._closed:
            try:
                down, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(down, next(self._ids)),
                             name="h2tap-conn", daemon=True).start()

    def _serve(self, down, conn_id):
        up = None
        try:
            down.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._listen_ssl is not None:
                down.settimeout(10)
                down = self._listen_ssl.wrap_socket(down, server_side=True)
            up = socket.create_connection(self._upstream, timeout=10)
            up.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._upstream_ssl is not None:
                up = self._upstream_ssl.wrap_socket(up, server_hostname=self._upstream_sni)
            with self._lock:
                self._conns.update((down, up))
            c2s, s2c = self._make_taps(conn_id)
            _relay(down, up, c2s, s2c)
        except (OSError, ssl.SSLError):
            pass
        finally:
            for s in (down, up):
                if s is None:
                    continue
                with self._lock:
                    self._conns.discard(s)
                try:
                    s.close()
                except OSError:
                    pass


_HIGH_WATER = 1 << 20


def _relay(down, up, c2s, s2c):
    """Single-threaded relay (an SSL object must not be read and written from two threads)."""
    for s in (down, up):
        s.setblocking(False)
    peer = {down: up, up: down}
    tap = {down: c2s, up: s2c}
    pending = {down: bytearray(), up: bytearray()}  # bytes waiting to be sent TO that socket
    eof = set()
    while True:
        readable = [s for s in (down, up) if s not in eof and len(pending[peer[s]]) < _HIGH_WATER]
        writable = [s for s in (down, up) if pending[s]]
        if not readable and not writable:
            return
        ready = [s for s in readable if isinstance(s, ssl.SSLSocket) and s.pending()]
        if ready:
            r, w = ready, []
        else:
            try:
                r, w, _ = select.select(readable, writable, [], 1.0)
            except (ValueError, OSError):
                return  # a socket was closed under us (TapProxy.close)
        for s in r:
            try:
                data = s.recv(65536)
            except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError, InterruptedError):
                continue
            except (OSError, ssl.SSLError):
                data = b""
            if not data:
                eof.add(s)
                continue
            pending[peer[s]] += tap[s].feed(data)
        for s in w:
            try:
                n = s.send(pending[s])
                del pending[s][:n]
            except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError, InterruptedError):
                pass
            except (OSError, ssl.SSLError):
                return
        if eof and not pending[down] and not pending[up]:
            return  # one side closed and everything it sent was delivered
