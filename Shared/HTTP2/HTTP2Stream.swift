package import IOLoop

/// One HTTP/2 stream, server or client side.
///
/// The methods without a `Loop` suffix may be called from any thread: they run at once on the
/// stream's loop or are queued to it in order. The state they change is touched only on the loop.
package final class HTTP2Stream: @unchecked Sendable {
    // @unchecked Sendable: `connection` and `loop` are immutable; every `var` below is read and
    // written only on `loop` (the public entry points hop there first).

    package let loop: EventLoop
    let connection: HTTP2Connection

    /// The stream id; 0 on a client stream until its request is submitted.
    var id: Int32
    var delegate: (any HTTP2StreamDelegate)?

    // Outbound state.
    var headersSubmitted = false
    /// A client request head given before the connection could submit it.
    var pendingHead: [HTTP2Header]?
    var outbound: [UInt8] = []
    var outboundOffset = 0
    var pendingTrailers: [HTTP2Header]?
    var endAfterData = false
    var finalQueued = false
    var dataDeferred = false
    var writabilityWaiters: [CheckedContinuation<Void, Never>] = []
    /// When a waiting writer last saw its bytes move (monotonic ns); see `housekeep`.
    var lastOutboundProgressAt: UInt64 = 0

    // Inbound state.
    // Unchecked: a request's every header field updates both, only ever on the connection's
    // loop, where no access can overlap another (the dynamic check cost about 2,000
    // instructions a call).
    @exclusivity(unchecked) var inboundHeaderBytes = 0
    @exclusivity(unchecked) var headerBlock: [HTTP2Header] = []
    var unconsumedBytes = 0
    /// The peer sent END_STREAM.
    var remoteEnded = false
    var closed = false

    /// Bytes buffered for sending above which `waitUntilWritable` suspends.
    static let highWaterMark = 1 << 20

    init(connection: HTTP2Connection, id: Int32) {
        self.connection = connection
        self.loop = connection.loop
        self.id = id
    }

    /// The peer of the stream's connection, for logs.
    package var connectionPeer: String { connection.peer }

    /// Whether the stream's connection is in a graceful shutdown (GOAWAY sent). Loop only.
    package var isConnectionDraining: Bool { connection.state == .draining }

    var bufferedOutboundBytes: Int { outbound.count - outboundOffset }

    // MARK: Any-thread API

    /// Sends a header block (response head on a server, request head on a client), then `data`,
    /// then ends the stream with `trailers` or a bare END_STREAM when `end` is set.
    /// A server response with no data and trailers goes out as one HEADERS frame (gRPC's
    /// Trailers-Only).
    package func send(headers: [HTTP2Header]? = nil, data: [UInt8] = [], end: StreamEnd? = nil) {
        if loop.inEventLoop {
            sendInLoop(headers: headers, data: data, end: end)
        } else {
            loop.execute { self.sendInLoop(headers: headers, data: data, end: end) }
        }
    }

    /// Resets the stream with `errorCode` (CANCEL by default).
    package func reset(errorCode: UInt32 = HTTP2ErrorCode.cancel) {
        loop.executeSoon { self.connection.resetStream(self, errorCode: errorCode) }
    }

    /// Returns `count` received bytes to the peer's flow-control window.
    package func consume(_ count: Int) {
        guard count > 0 else { return }
        loop.executeSoon { self.connection.consume(self, count: count) }
    }

    /// Suspends while more than `highWaterMark` bytes wait to be sent on this stream, so a
    /// peer that reads slowly slows down only its own stream's producer.
    package func waitUntilWritable() async {
        let needsWait: Bool = loop.inEventLoop
            ? (bufferedOutboundBytes > Self.highWaterMark && !closed)
            : true
        guard needsWait else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.executeSoon {
                if self.bufferedOutboundBytes > Self.highWaterMark && !self.closed {
                    if self.writabilityWaiters.isEmpty { self.lastOutboundProgressAt = MonotonicClock.nanoseconds() }
                    self.writabilityWaiters.append(continuation)
                } else {
                    continuation.resume()
                }
            }
        }
    }

    // MARK: Loop-confined

    private func sendInLoop(headers: [HTTP2Header]?, data: [UInt8], end: StreamEnd?) {
        guard !closed, !finalQueued else { return }
        if !data.isEmpty {
            connection.counters?.add(data.count)
            if outboundOffset == outbound.count {
                outbound = data
                outboundOffset = 0
            } else {
                outbound.append(contentsOf: data)
            }
        }
        if let end {
            finalQueued = true
            switch end {
            case .endStream: endAfterData = true
            case .trailers(let trailers): pendingTrailers = trailers
            }
        }
        connection.streamHasOutput(self, headers: headers)
    }

    /// Called by the connection after it sent bytes of this stream.
    func didDrainOutbound() {
        if !writabilityWaiters.isEmpty { lastOutboundProgressAt = MonotonicClock.nanoseconds() }
        if outboundOffset == outbound.count {
            outbound.removeAll(keepingCapacity: outbound.capacity <= 64 << 10)
            outboundOffset = 0
        }
        if !writabilityWaiters.isEmpty && bufferedOutboundBytes <= Self.highWaterMark / 2 {
            resumeWriters()
        }
    }

    func resumeWriters() {
        let waiters = writabilityWaiters
        writabilityWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}

/// How a sender ends its side of a stream.
package enum StreamEnd: Sendable {
    /// END_STREAM on the last DATA frame (a client finishing its request).
    case endStream
    /// A trailing HEADERS frame with END_STREAM (a gRPC server's status).
    case trailers([HTTP2Header])
}
