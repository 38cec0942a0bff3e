#if canImport(Glibc)
import Glibc
internal import CLinux
#endif
internal import CNGHTTP2
import Synchronization
package import IOLoop

/// One HTTP/2 connection driven by nghttp2 on one event loop, as a server or a client.
///
/// Owns the socket, the transport (plain or TLS) and the `nghttp2_session`, all freed in
/// `close`. Everything here runs on `loop`; other threads reach it through `HTTP2Stream` and
/// the `*Soon` methods, which hop to the loop.
package final class HTTP2Connection: EventLoopHandler, EventLoopFlushable, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is confined to `loop`; the only members used from
    // other threads are `loop` (immutable) and the methods that hop to it.

    enum Role {
        case server(any HTTP2ServerStreamHandler)
        case client
    }

    enum State {
        case handshaking
        case active
        case draining
        case closed
    }

    package let loop: EventLoop
    let role: Role
    let fd: Int32
    let configuration: HTTP2Configuration
    let transport: any ByteTransport
    var session: OpaquePointer?
    var state: State = .handshaking
    // Unchecked, like the stream's header state: touched only on the loop, where no access to
    // them overlaps another; looked up for every header field, frame and write (the dynamic
    // checks cost about 1,500 instructions a call).
    @exclusivity(unchecked) var streams = HTTP2StreamTable()
    /// The header block received last, whose fields the next block reuses where its bytes are
    /// the same (a client's requests repeat nearly every field), instead of decoding new strings.
    @exclusivity(unchecked) var previousHeaderBlock: [HTTP2Header] = []

    /// Raised inside an nghttp2 callback; rethrown by the code that called nghttp2.
    var callbackFailure: String?

    // Output: bytes taken from nghttp2 and not yet written.
    @exclusivity(unchecked) private var output: [UInt8] = []
    @exclusivity(unchecked) private var outputOffset = 0
    private var watchingWritable = false
    private var flushScheduled = false
    private var outputStalledSince: UInt64?

    // Timers and liveness.
    private let createdAt = MonotonicClock.nanoseconds()
    private var lastReadAt = MonotonicClock.nanoseconds()
    private var idleSince: UInt64? = MonotonicClock.nanoseconds()
    private var pingSentAt: UInt64?
    var prefaceReceived = false
    private var tcpConnected = false
    private var housekeepingTimer: TimerID?

    /// Called once, on the loop, when the handshake finished (nil) or failed.
    var onActive: ((String?) -> Void)?
    /// Called once, on the loop, after the connection closed.
    var onClose: (() -> Void)?
    /// Set when the peer sent GOAWAY: no new streams may be opened.
    var goawayReceived = false {
        didSet { if goawayReceived { acceptingStreams.store(false, ordering: .relaxed) } }
    }
    private let acceptingStreams = Atomic<Bool>(true)

    /// False once the connection closed or the peer sent GOAWAY. Any thread.
    package var acceptsNewStreams: Bool { acceptingStreams.load(ordering: .relaxed) }
    /// The owning server's counters (nil on client connections).
    var counters: HTTP2Counters?
    /// A description of the peer, for logs.
    package let peer: String

    private static let readBufferSize = 64 << 10
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readBufferSize, alignment: 16)

    init(loop: EventLoop, fd: Int32, transport: any ByteTransport, role: Role, configuration: HTTP2Configuration) {
        self.loop = loop
        self.fd = fd
        self.transport = transport
        self.role = role
        self.configuration = configuration
        self.peer = Socket.peerDescription(fd)
    }

    deinit {
        readBuffer.deallocate()
        if let session { nghttp2_session_del(session) }
    }

    /// Registers with the loop and starts the handshake. Loop thread only.
    func start() throws {
        loop.assertInLoop()
        try loop.register(fd: fd, events: EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue, handler: self)
        watchingWritable = true
        scheduleHousekeeping()
        advanceHandshake()
    }

    // MARK: Events

    package func handleEvents(_ events: UInt32) {
        guard state != .closed else { return }
        if state == .handshaking {
            advanceHandshake()
            return
        }
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0 {
            readAvailable()
        }
        if state != .closed && events & EPOLLOUT.rawValue != 0 {
            flush()
        }
    }

    private func advanceHandshake() {
        if case .client = role, !tcpConnected {
            let error = Socket.pendingError(fd)
            if error != 0 {
                close(reason: SocketError.system("connect", error).description)
                return
            }
            guard Socket.isConnected(fd) else {
                setWatchingWritable(true)
                return
            }
            tcpConnected = true
        }
        switch transport.handshake() {
        case .bytes:
            do {
                try startSession()
            } catch {
                close(reason: "session setup failed")
                return
            }
            state = .active
            onActive?(nil)
            onActive = nil
            submitPendingClientStreams()
            readAvailable()
            flush()
        case .wouldBlock(let wantsWrite):
            setWatchingWritable(wantsWrite)
        case .closed, .failed:
            close(reason: "handshake failed")
        }
    }

    private func readAvailable() {
        // A bounded number of reads per wakeup keeps one busy peer from starving the others.
        for _ in 0..<16 {
            guard state == .active || state == .draining else { return }
            switch transport.read(into: readBuffer) {
            case .bytes(let count):
                lastReadAt = MonotonicClock.nanoseconds()
                pingSentAt = nil
                let consumed = nghttp2_session_mem_recv(session, readBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count)
                if consumed < 0 || callbackFailure != nil {
                    // nghttp2 has queued a GOAWAY for protocol errors; try to send it, then close.
                    flush()
                    close(reason: callbackFailure ?? String(cString: nghttp2_strerror(Int32(consumed))))
                    return
                }
                if count < readBuffer.count { scheduleFlush(); return }
            case .wouldBlock(let wantsWrite):
                if wantsWrite { setWatchingWritable(true) }
                scheduleFlush()
                return
            case .closed, .failed:
                close(reason: "peer closed")
                return
            }
        }
        scheduleFlush()
    }

    // MARK: Output

    /// Asks for a flush at the end of this loop iteration, batching frames of many streams into
    /// one write.
    func scheduleFlush() {
        guard !flushScheduled, state != .closed else { return }
        flushScheduled = true
        loop.scheduleFlush(self)
    }

    package func flushAtEndOfIteration() {
        flushScheduled = false
        flush()
    }

    /// Moves frames from nghttp2 to the socket until either has nothing more to give or take.
    func flush() {
        guard state == .active || state == .draining, let session else { return }
        while true {
            if outputOffset < output.count {
                let result = output.withUnsafeBytes { buffer in
                    transport.write(UnsafeRawBufferPointer(rebasing: buffer[outputOffset...]))
                }
                switch result {
                case .bytes(let count):
                    outputOffset += count
                    counters?.add(-count)
                    outputStalledSince = nil
                    if outputOffset < output.count { continue }
                    output.removeAll(keepingCapacity: output.capacity <= 256 << 10)
                    outputOffset = 0
                case .wouldBlock:
                    if outputStalledSince == nil { outputStalledSince = MonotonicClock.nanoseconds() }
                    setWatchingWritable(true)
                    return
                case .closed, .failed:
                    close(reason: "write failed")
                    return
                }
            }
            // Gather frames into one buffer so a burst of responses costs one write.
            while output.count < 128 << 10 {
                var chunk: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &chunk)
                if length < 0 {
                    close(reason: String(cString: nghttp2_strerror(Int32(length))))
                    return
                }
                guard length > 0, let chunk else { break }
                if output.isEmpty && length >= 16 << 10 {
                    // A large DATA frame goes straight from nghttp2's buffer to the socket;
                    // only what the socket refuses is copied.
                    switch transport.write(UnsafeRawBufferPointer(start: chunk, count: length)) {
                    case .bytes(let written) where written == length:
                        outputStalledSince = nil
                        continue
                    case .bytes(let written):
                        output.append(contentsOf: UnsafeBufferPointer(start: chunk + written, count: length - written))
                        counters?.add(length - written)
                    case .wouldBlock:
                        output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
                        counters?.add(length)
                    case .closed, .failed:
                        close(reason: "write failed")
                        return
                    }
                    break
                }
                output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
                counters?.add(length)
            }
            if callbackFailure != nil {
                close(reason: callbackFailure ?? "callback failed")
                return
            }
            if output.isEmpty { break }
        }
        setWatchingWritable(false)
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            close(reason: "session finished")
        }
    }

    private func setWatchingWritable(_ watching: Bool) {
        guard watching != watchingWritable, state != .closed else { return }
        watchingWritable = watching
        var events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        if watching { events |= EPOLLOUT.rawValue }
        loop.modify(fd: fd, events: events)
    }

    // MARK: Streams

    func register(_ stream: HTTP2Stream) {
        streams.insert(stream)
        idleSince = nil
    }

    func streamClosed(id: Int32, errorCode: UInt32) {
        guard let stream = streams.remove(id) else { return }
        if streams.isEmpty { idleSince = MonotonicClock.nanoseconds() }
        finish(stream, errorCode: errorCode)
    }

    private func finish(_ stream: HTTP2Stream, errorCode: UInt32) {
        stream.closed = true
        // Nothing more of this stream will be sent: free its queued bytes now.
        counters?.add(-stream.bufferedOutboundBytes)
        stream.outbound = []
        stream.outboundOffset = 0
        if stream.unconsumedBytes > 0, let session {
            // Data the reader never took still counts against the connection window.
            nghttp2_session_consume_connection(session, stream.unconsumedBytes)
            stream.unconsumedBytes = 0
        }
        stream.resumeWriters()
        let delegate = stream.delegate
        stream.delegate = nil
        delegate?.didClose(errorCode: errorCode)
    }

    func consume(_ stream: HTTP2Stream, count: Int) {
        guard let session, !stream.closed else { return }
        let amount = min(count, stream.unconsumedBytes)
        guard amount > 0 else { return }
        stream.unconsumedBytes -= amount
        nghttp2_session_consume(session, stream.id, amount)
        scheduleFlush()
    }

    func resetStream(_ stream: HTTP2Stream, errorCode: UInt32) {
        guard let session, !stream.closed else { return }
        if stream.id == 0 {
            // A client stream that never got an id: nothing on the wire to reset.
            finish(stream, errorCode: errorCode)
            return
        }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, errorCode)
        scheduleFlush()
    }

    // MARK: Shutdown

    /// Starts a graceful shutdown: GOAWAY, let open streams finish, then close.
    func beginGracefulShutdown() {
        guard let session, state == .active || state == .handshaking else {
            if state == .handshaking { close(reason: "shutdown") }
            return
        }
        state = .draining
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue),
                              nghttp2_session_get_last_proc_stream_id(session), HTTP2ErrorCode.noError, nil, 0)
        scheduleFlush()
        for stream in streams.all { stream.delegate?.serverDraining() }
    }

    /// Closes the socket now, failing any open stream.
    func close(reason: String) {
        guard state != .closed else { return }
        state = .closed
        acceptingStreams.store(false, ordering: .relaxed)
        counters?.add(-(output.count - outputOffset))
        output = []
        outputOffset = 0
        if let housekeepingTimer { loop.cancelTimer(housekeepingTimer) }
        loop.deregister(fd: fd)
        transport.shutdown()
        Glibc.close(fd)
        for stream in streams.removeAll() { finish(stream, errorCode: HTTP2ErrorCode.cancel) }
        for stream in pendingClientStreams { finish(stream, errorCode: HTTP2ErrorCode.refusedStream) }
        pendingClientStreams.removeAll()
        // The session is deleted in deinit: `close` may run inside an nghttp2 callback.
        let onActive = self.onActive
        self.onActive = nil
        onActive?(reason)
        let onClose = self.onClose
        self.onClose = nil
        onClose?()
    }

    /// Client streams created before the connection could submit them.
    var pendingClientStreams: [HTTP2Stream] = []

    // MARK: Housekeeping

    private func scheduleHousekeeping() {
        housekeepingTimer = loop.scheduleTimer(afterNanoseconds: 1_000_000_000) { [weak self] in
            self?.housekeep()
        }
    }

    private func housekeep() {
        guard state != .closed else { return }
        let now = MonotonicClock.nanoseconds()
        if !prefaceReceived && now - createdAt > configuration.handshakeTimeout.nanoseconds {
            close(reason: "handshake timeout")
            return
        }
        if let since = outputStalledSince, now - since > configuration.writeStallTimeout.nanoseconds {
            close(reason: "peer stopped reading")
            return
        }
        // A stream whose writer waits while its peer keeps the window shut (yet answers PINGs,
        // so the connection looks alive) is reset: it would hold its buffer and handler forever.
        for stream in streams.all where !stream.writabilityWaiters.isEmpty
            && now - stream.lastOutboundProgressAt > configuration.writeStallTimeout.nanoseconds {
            resetStream(stream, errorCode: HTTP2ErrorCode.cancel)
        }
        if let since = idleSince, state == .active, now - since > configuration.idleTimeout.nanoseconds {
            beginGracefulShutdown()
        }
        if let sent = pingSentAt {
            if now - sent > configuration.keepaliveTimeout.nanoseconds {
                close(reason: "keepalive timeout")
                return
            }
        } else if state == .active, now - lastReadAt > configuration.keepaliveInterval.nanoseconds, let session {
            pingSentAt = now
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
            scheduleFlush()
        }
        scheduleHousekeeping()
    }
}
