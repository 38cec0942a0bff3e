import Testing
import TestSupport

extension HTTP2ServerTests {
    /// SETTINGS_MAX_CONCURRENT_STREAMS and the server's connection cap.
    @Suite struct ConnectionLimitTests {
        /// Opens `count` unary streams (headers only, so each stays open) from stream id 1.
        static func openStreams(_ peer: RawHTTP2Peer, count: Int) throws {
            for index in 0..<count {
                try peer.sendHeaders(streamID: UInt32(2 * index + 1), GRPC.requestHeaders(path: GRPC.unaryCall))
            }
        }

        /// Finishes stream `id`'s request and waits for its trailers.
        static func completeStream(_ peer: RawHTTP2Peer, id: UInt32) throws -> RawHTTP2Frame? {
            try peer.sendData(streamID: id, GRPC.unaryRequest(), endStream: true)
            var seen: [RawHTTP2Frame] = []
            let outcome = peer.readUntil(seen: &seen) {
                $0.streamID == id && ($0.has(RawHTTP2Frame.Flags.endStream) || $0.type == RawHTTP2Frame.Kind.rstStream)
            }
            if case .frame(let frame) = outcome { return frame }
            return nil
        }

        @Test func streamsOverTheLimit_beforeSettingsAck_areRefused() async throws {
            let server = try TestServer { $0.http2.maxConcurrentStreams = 10 }
            let peer = try RawHTTP2Peer(port: server.port)
            try peer.sendPreface()
            // Not acknowledging the server's SETTINGS: the peer may not know the limit yet.
            try Self.openStreams(peer, count: 12)
            var seen: [RawHTTP2Frame] = []
            var refused: [UInt32] = []
            while refused.count < 2, case .frame(let frame) = peer.readUntil(timeout: .seconds(3), seen: &seen, {
                $0.type == RawHTTP2Frame.Kind.rstStream
            }) {
                #expect(frame.errorCode == 0x7, "\(frame)")
                refused.append(frame.streamID)
            }
            #expect(refused == [21, 23], "saw \(seen)")
            for id in stride(from: UInt32(1), through: 19, by: 2) {
                let last = try Self.completeStream(peer, id: id)
                #expect(last?.type == RawHTTP2Frame.Kind.headers, "stream \(id) ended with \(String(describing: last))")
            }
            await server.expectServesOthers()
            await server.stop()
        }

        /// nghttp2 treats a stream over the acknowledged limit as a connection error
        /// (PROTOCOL_ERROR), stricter than RFC 9113 §5.1.2's stream error; the peer that ignored
        /// the limit loses its connection, nobody else is affected.
        @Test func streamsOverTheLimit_afterSettingsAck_endTheConnection() async throws {
            let server = try TestServer { $0.http2.maxConcurrentStreams = 10 }
            let peer = try RawHTTP2Peer(port: server.port)
            try peer.sendPreface()
            let settings = try peer.acknowledgeServerSettings()
            #expect(settings.contains { $0.0 == RawHTTP2Frame.Setting.maxConcurrentStreams && $0.1 == 10 })
            try peer.sendPing()
            var seen: [RawHTTP2Frame] = []
            _ = peer.readUntil(seen: &seen) { $0.type == RawHTTP2Frame.Kind.ping && $0.has(RawHTTP2Frame.Flags.ack) }
            for id in stride(from: UInt32(1), through: 19, by: 2) {
                try peer.sendHeaders(streamID: id, GRPC.requestHeaders(path: GRPC.unaryCall))
            }
            let first = try Self.completeStream(peer, id: 1)
            #expect(first?.type == RawHTTP2Frame.Kind.headers)
            try peer.sendHeaders(streamID: 21, GRPC.requestHeaders(path: GRPC.unaryCall))
            try peer.sendHeaders(streamID: 23, GRPC.requestHeaders(path: GRPC.unaryCall))
            let frames = peer.readUntilClosed(timeout: .seconds(3)) ?? []
            let answer = frames.first { $0.type == RawHTTP2Frame.Kind.goaway || ($0.type == RawHTTP2Frame.Kind.rstStream && $0.streamID == 23) }
            Measure.log("11th stream after SETTINGS ACK with max 10: \(answer.map(String.init(describing:)) ?? "nothing"), then closed")
            #expect(answer != nil)
            await server.expectServesOthers()
            await server.stop()
        }

        @Test func connectionCap_closesTheExtraConnectionAtAccept_andRecovers() async throws {
            let server = try TestServer { $0.http2.maxConnections = 5 }
            var peers: [RawHTTP2Peer] = []
            for _ in 0..<5 {
                let peer = try RawHTTP2Peer(port: server.port)
                try peer.sendPreface()
                try peer.acknowledgeServerSettings()
                peers.append(peer)
            }
            let extra = try RawHTTP2Peer(port: server.port)
            let start = ContinuousClock.now
            try? extra.sendPreface()
            let extraFrames = extra.readUntilClosed(timeout: .seconds(2))
            #expect(extraFrames != nil, "a 6th connection was served with maxConnections = 5")
            #expect(extraFrames?.isEmpty ?? false, "the 6th connection got frames: \(extraFrames ?? [])")
            Measure.log("6th connection over a cap of 5: closed after \(Measure.milliseconds(ContinuousClock.now - start)) ms")

            for peer in peers {
                try peer.sendPing()
                var seen: [RawHTTP2Frame] = []
                let pong = peer.readUntil(seen: &seen) { $0.type == RawHTTP2Frame.Kind.ping }
                guard case .frame = pong else {
                    Issue.record("an admitted connection stopped answering: \(pong)")
                    continue
                }
            }

            peers.suffix(2).forEach { $0.close() }
            peers.removeLast(2)
            var admitted = false
            let deadline = ContinuousClock.now.advanced(by: .seconds(3))
            while !admitted && ContinuousClock.now < deadline {
                let peer = try RawHTTP2Peer(port: server.port)
                try? peer.sendPreface()
                if case .frame(let frame) = peer.readFrame(timeout: .milliseconds(500)), frame.type == RawHTTP2Frame.Kind.settings {
                    admitted = true
                    peers.append(peer)
                } else {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(admitted, "no connection admitted after two of five closed")
            peers.forEach { $0.close() }
            try await Task.sleep(for: .milliseconds(200))
            await server.expectServesOthers()
            await server.stop()
        }
    }
}
