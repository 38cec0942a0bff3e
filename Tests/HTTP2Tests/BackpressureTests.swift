#if canImport(Glibc)
import Glibc
#endif
import Contracts
import HTTP2
import RPC
import Synchronization
import Testing
import TestSupport

extension HTTP2ServerTests {
    /// Peers that read slowly or not at all: memory stays bounded, other streams keep flowing.
    @Suite struct BackpressureTests {
        /// A peer that grants a 2 GiB window (so only TCP can push back) and asks for 64 × 1 MiB.
        static func requestHugeStream(_ peer: RawHTTP2Peer, count: Int = 64) throws {
            try peer.sendPreface(settings: [(RawHTTP2Frame.Setting.initialWindowSize, 0x7fff_ffff)])
            try peer.sendWindowUpdate(streamID: 0, increment: 0x7fff_ffff - 65_535)
            try peer.acknowledgeServerSettings()
            try peer.sendHeaders(streamID: 1, GRPC.requestHeaders(path: GRPC.streamingOutputCall))
            try peer.sendData(streamID: 1, GRPC.streamingRequest(count: count, size: 1 << 20), endStream: true)
        }

        /// Samples the process's RSS (logged only: other tests share the process) and the server's
        /// own count of buffered response bytes (asserted) until `done` or `timeout`.
        static func watchMemory(_ server: TestServer, timeout: Duration, until done: () -> Bool)
            async -> (peak: Int, buffered: Int, done: Bool) {
            var peak = ProcessMemory.residentBytes()
            var buffered = server.server.bufferedOutboundBytes
            let deadline = ContinuousClock.now.advanced(by: timeout)
            while ContinuousClock.now < deadline {
                peak = max(peak, ProcessMemory.residentBytes())
                buffered = max(buffered, server.server.bufferedOutboundBytes)
                if done() { return (peak, buffered, true) }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return (peak, buffered, done())
        }

        /// What one stalled stream may hold: its high-water mark, the message being written when
        /// it was crossed, and one batch of connection output.
        static let stalledStreamBound = 3 << 20

        @Test func neverReadingPeer_staysBounded_andWriteStallClosesIt() async throws {
            let server = try TestServer { $0.http2.writeStallTimeout = .seconds(2) }
            let rssBefore = ProcessMemory.residentBytes()
            let peer = try RawHTTP2Peer(port: server.port)
            try Self.requestHugeStream(peer)
            let start = ContinuousClock.now
            // Other clients are served while the stalled handler waits.
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.gauge.active == 1, "the streaming handler is not running (or not suspended)")
            await server.expectServesOthers()
            let (peak, buffered, closed) = await Self.watchMemory(server, timeout: .seconds(6)) { server.gauge.active == 0 }
            let elapsed = ContinuousClock.now - start
            #expect(closed, "the handler of a never-reading peer is still running")
            #expect(elapsed < .seconds(5))
            #expect(buffered < Self.stalledStreamBound, "the server buffered \(Measure.mebibytes(buffered)) for a stalled stream")
            #expect(server.server.bufferedOutboundBytes == 0, "bytes of a closed connection are still counted")
            // What the kernel buffered arrives, then EOF: the server closed the connection.
            let frames = peer.readUntilClosed(timeout: .seconds(5))
            #expect(frames != nil, "the connection is still open")
            let received = frames?.filter { $0.type == RawHTTP2Frame.Kind.data }.reduce(0) { $0 + $1.payload.count } ?? 0
            Measure.log("never-reading peer (2 GiB window): handler ended / connection closed after \(Measure.milliseconds(elapsed)) ms "
                        + "(writeStallTimeout 2 s); \(Measure.mebibytes(received)) had reached the socket buffers; "
                        + "RSS \(Measure.mebibytes(rssBefore)) -> peak \(Measure.mebibytes(peak))")
            await server.stop()
        }

        /// Flow control stalls the stream (the default 64 KiB window) so the socket never blocks:
        /// the write-stall timer cannot fire, the keepalive PING that goes unanswered closes it.
        @Test func neverReadingPeer_withClosedWindow_closedByKeepalive() async throws {
            let server = try TestServer {
                $0.http2.writeStallTimeout = .seconds(2)
                $0.http2.keepaliveInterval = .seconds(1)
                $0.http2.keepaliveTimeout = .seconds(1)
            }
            let rssBefore = ProcessMemory.residentBytes()
            let peer = try RawHTTP2Peer(port: server.port)
            try peer.sendPreface()
            try peer.acknowledgeServerSettings()
            try peer.sendHeaders(streamID: 1, GRPC.requestHeaders(path: GRPC.streamingOutputCall))
            try peer.sendData(streamID: 1, GRPC.streamingRequest(count: 64, size: 1 << 20), endStream: true)
            let start = ContinuousClock.now
            let running = await Self.watchMemory(server, timeout: .seconds(2)) { server.gauge.active == 1 }.done
            #expect(running, "the streaming handler did not start (started: \(server.gauge.started))")
            await server.expectServesOthers()
            let (peak, buffered, closed) = await Self.watchMemory(server, timeout: .seconds(8)) { server.gauge.active == 0 }
            let elapsed = ContinuousClock.now - start
            #expect(closed, "the handler of a never-reading peer is still running")
            #expect(buffered < Self.stalledStreamBound, "the server buffered \(Measure.mebibytes(buffered)) for a stalled stream")
            var seen: [RawHTTP2Frame] = []
            let end = peer.readUntil(timeout: .seconds(2), seen: &seen) { _ in false }
            let summary = seen.filter { $0.type != RawHTTP2Frame.Kind.data }
            #expect({ if case .closed = end { return true } else { return false } }(),
                    "still open: \(end); non-DATA frames: \(summary); started \(server.gauge.started)")
            Measure.log("never-reading peer (64 KiB window): closed after \(Measure.milliseconds(elapsed)) ms "
                        + "(keepalive 1 s + 1 s); RSS \(Measure.mebibytes(rssBefore)) -> peak \(Measure.mebibytes(peak))")
            await server.expectServesOthers()
            await server.stop()
        }

        /// A peer that reads steadily but slower than the handler writes: the stream's send
        /// buffer must stay near its high-water mark, not keep every message ever written.
        @Test func slowSteadyReader_serverBufferStaysBounded_andStreamArrivesComplete() async throws {
            let server = try TestServer()
            let rssBefore = ProcessMemory.residentBytes()
            let peer = try RawHTTP2Peer(port: server.port)
            peer.setReceiveBuffer(bytes: 64 << 10)
            try Self.requestHugeStream(peer, count: 32)
            let peak = Mutex(rssBefore)
            let peakBuffered = Mutex(0)
            let sampler = Task {
                while !Task.isCancelled {
                    let rss = ProcessMemory.residentBytes()
                    peak.withLock { $0 = max($0, rss) }
                    let buffered = server.server.bufferedOutboundBytes
                    peakBuffered.withLock { $0 = max($0, buffered) }
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
            let start = ContinuousClock.now
            var received = 0
            var sinceNap = 0
            var ended = false
            while !ended, case .frame(let frame) = peer.readFrame(timeout: .seconds(5)) {
                if frame.type == RawHTTP2Frame.Kind.data && frame.streamID == 1 {
                    received += frame.payload.count
                    sinceNap += frame.payload.count
                    if sinceNap >= 256 << 10 {
                        sinceNap = 0
                        usleep(8_000)
                    }
                }
                ended = frame.streamID == 1 && frame.has(RawHTTP2Frame.Flags.endStream)
            }
            sampler.cancel()
            let elapsed = ContinuousClock.now - start
            let growth = peak.withLock { $0 } - rssBefore
            // 64 messages of 1 MiB payload, each with a 5-byte gRPC prefix and a few bytes of protobuf framing.
            #expect(ended)
            #expect(received >= 32 * ((1 << 20) + 5))
            let buffered = peakBuffered.withLock { $0 }
            #expect(buffered < Self.stalledStreamBound, "the server buffered \(Measure.mebibytes(buffered)) for a slow reader")
            Measure.log("slow steady reader: \(Measure.mebibytes(received)) in \(Measure.milliseconds(elapsed)) ms; "
                        + "RSS growth \(Measure.mebibytes(growth))")
            await server.expectServesOthers()
            await server.stop()
        }

        @Test func unreadStream_doesNotBlockOtherStreamsOnTheSameConnection() async throws {
            let server = try TestServer()
            let client = RPCClient(host: "127.0.0.1", port: server.port)
            defer { client.close() }
            var request = GRPCTesting.StreamingOutputCallRequest()
            request.responseParameters = Array(repeating: GRPCTesting.ResponseParameters(size: 1 << 20), count: 32)
            let stalled = try await client.serverStreaming(path: GRPC.streamingOutputCall, request: request,
                                                           as: GRPCTesting.StreamingOutputCallResponse.self)
            try await Task.sleep(for: .milliseconds(200))
            let start = ContinuousClock.now
            for index in 0..<20 {
                var unary = GRPCTesting.SimpleRequest()
                unary.responseSize = 64 << 10
                do {
                    let response = try await client.unary(path: GRPC.unaryCall, request: unary, as: GRPCTesting.SimpleResponse.self,
                                                           options: CallOptions(timeout: .seconds(3)))
                    #expect(response.message.payload?.body.count == 64 << 10)
                } catch {
                    Issue.record("unary call \(index) behind an unread stream failed: \(error)")
                    break
                }
            }
            Measure.log("20 unary calls beside an unread 32 MiB stream: \(Measure.milliseconds(ContinuousClock.now - start)) ms")
            #expect(server.server.configuration.http2.maxConcurrentStreams > 1)
            // The stalled stream still delivers everything once read.
            var count = 0
            for try await message in stalled {
                #expect(message.payload?.body.count == 1 << 20)
                count += 1
            }
            #expect(count == 32)
            #expect(await stalled.status().code == .ok)
            await server.stop()
        }
    }
}

extension HTTP2ServerTests.BackpressureTests {
    /// A peer that answers PINGs (so keepalive is happy) but never opens the stream's window:
    /// the stalled stream is reset after `writeStallTimeout`, its handler ends and its buffer is
    /// freed, while the connection itself stays up.
    @Test func windowNeverOpened_butPingsAnswered_streamIsReset() async throws {
        let server = try TestServer {
            $0.http2.writeStallTimeout = .seconds(2)
            $0.http2.keepaliveInterval = .seconds(1)
            $0.http2.keepaliveTimeout = .seconds(1)
        }
        let peer = try RawHTTP2Peer(port: server.port)
        try peer.sendPreface()
        try peer.acknowledgeServerSettings()
        try peer.sendHeaders(streamID: 1, GRPC.requestHeaders(path: GRPC.streamingOutputCall))
        try peer.sendData(streamID: 1, GRPC.streamingRequest(count: 64, size: 1 << 20), endStream: true)
        let start = ContinuousClock.now
        var reset: RawHTTP2Frame?
        var closed = false
        // Read (and answer PINGs) until the server resets stream 1, for at most 8 s.
        while reset == nil && !closed && ContinuousClock.now - start < .seconds(8) {
            switch peer.readFrame(timeout: .milliseconds(500)) {
            case .frame(let frame):
                if frame.type == RawHTTP2Frame.Kind.ping && !frame.has(RawHTTP2Frame.Flags.ack) {
                    try peer.sendPing(frame.payload, ack: true)
                } else if frame.type == RawHTTP2Frame.Kind.rstStream && frame.streamID == 1 {
                    reset = frame
                }
            case .closed: closed = true
            case .timedOut: continue
            }
        }
        let elapsed = ContinuousClock.now - start
        #expect(!closed, "the connection was closed instead of the stream being reset")
        #expect(reset?.errorCode == HTTP2ErrorCode.cancel, "no RST_STREAM(CANCEL) for the stalled stream")
        #expect(elapsed < .seconds(5))
        #expect(await server.waitForHandlersToFinish(), "the stalled stream's handler is still running")
        #expect(server.server.bufferedOutboundBytes == 0, "the reset stream's buffer is still held")
        // The same connection still answers a PING.
        try peer.sendPing([1, 2, 3, 4, 5, 6, 7, 8])
        var seen: [RawHTTP2Frame] = []
        let pong = peer.readUntil(timeout: .seconds(2), seen: &seen) { $0.type == RawHTTP2Frame.Kind.ping && $0.has(RawHTTP2Frame.Flags.ack) }
        #expect({ if case .frame = pong { return true } else { return false } }(), "the connection stopped answering")
        Measure.log("window never opened, PINGs answered: stream reset after \(Measure.milliseconds(elapsed)) ms (writeStallTimeout 2 s)")
        await server.stop()
    }
}
