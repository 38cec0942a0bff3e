import Testing
import TestSupport

extension HTTP2ServerTests {
    /// Header blocks that never end or grow past SETTINGS_MAX_HEADER_LIST_SIZE.
    @Suite struct HeaderFloodTests {
        @Test func continuationFlood_closesConnection() async throws {
            let server = try TestServer()
            let rssBefore = ProcessMemory.residentBytes()
            let peer = try RawHTTP2Peer(port: server.port)
            try peer.sendPreface()
            try peer.acknowledgeServerSettings()
            let start = ContinuousClock.now
            try peer.sendHeaders(streamID: 1, GRPC.requestHeaders(path: GRPC.unaryCall), endHeaders: false)
            let filler = HPACKLiteralEncoder.encode(Array(repeating: ("x-filler", String(repeating: "a", count: 1000)), count: 16))
            var continuations = 0
            for _ in 0..<10_000 {
                do {
                    try peer.sendContinuation(streamID: 1, block: filler, endHeaders: false)
                } catch {
                    break
                }
                continuations += 1
            }
            let frames = peer.readUntilClosed(timeout: .seconds(5))
            let elapsed = ContinuousClock.now - start
            let goaway = frames?.first { $0.type == RawHTTP2Frame.Kind.goaway }
            #expect(frames != nil, "the server kept reading CONTINUATION frames")
            let rssAfter = ProcessMemory.residentBytes()
            #expect(rssAfter - rssBefore < 32 << 20)
            Measure.log("CONTINUATION flood: \(continuations) frames of \(filler.count) bytes written; GOAWAY error "
                        + "\(goaway?.errorCode.map(String.init) ?? "none"); closed after \(Measure.milliseconds(elapsed)) ms; "
                        + "RSS \(Measure.mebibytes(rssBefore)) -> \(Measure.mebibytes(rssAfter))")
            await server.expectServesOthers()
            await server.stop()
        }

        @Test func headerListOverLimit_resetsStreamAndConnectionStillServes() async throws {
            let server = try TestServer { $0.http2.maxHeaderListSize = 16 << 10 }
            let peer = try RawHTTP2Peer(port: server.port)
            try peer.sendPreface()
            try peer.acknowledgeServerSettings()
            // 40 KiB of fields in three frames (HEADERS + 2 CONTINUATION, 16 KiB each at most).
            let block = HPACKLiteralEncoder.encode(GRPC.requestHeaders(path: GRPC.unaryCall)
                + (0..<40).map { ("x-big-\($0)", String(repeating: "b", count: 1000)) })
            let start = ContinuousClock.now
            var chunks = stride(from: 0, to: block.count, by: 16_384).map { Array(block[$0..<min($0 + 16_384, block.count)]) }
            try peer.write(RawHTTP2Peer.headersFrame(streamID: 1, block: chunks.removeFirst(), endStream: false, endHeaders: false))
            for (index, chunk) in chunks.enumerated() {
                try peer.sendContinuation(streamID: 1, block: chunk, endHeaders: index == chunks.count - 1)
            }
            try peer.sendData(streamID: 1, GRPC.unaryRequest(), endStream: true)

            var seen: [RawHTTP2Frame] = []
            let outcome = peer.readUntil(timeout: .seconds(3), seen: &seen) {
                ($0.type == RawHTTP2Frame.Kind.rstStream && $0.streamID == 1) || $0.type == RawHTTP2Frame.Kind.goaway
            }
            let elapsed = ContinuousClock.now - start
            guard case .frame(let answer) = outcome else {
                Issue.record("no RST_STREAM or GOAWAY for an oversized header list: \(outcome), saw \(seen)")
                return
            }
            #expect(!seen.contains { $0.type == RawHTTP2Frame.Kind.headers && $0.streamID == 1 },
                    "the oversized request was answered as if accepted")
            Measure.log("header list of \(block.count) bytes over a 16 KiB limit: \(answer) after \(Measure.milliseconds(elapsed)) ms")

            if answer.type == RawHTTP2Frame.Kind.rstStream {
                // Only the stream failed: the same connection still serves a normal request.
                try peer.sendHeaders(streamID: 3, GRPC.requestHeaders(path: GRPC.unaryCall))
                try peer.sendData(streamID: 3, GRPC.unaryRequest(), endStream: true)
                seen.removeAll()
                let next = peer.readUntil(timeout: .seconds(3), seen: &seen) {
                    $0.streamID == 3 && ($0.has(RawHTTP2Frame.Flags.endStream) || $0.type == RawHTTP2Frame.Kind.rstStream)
                }
                guard case .frame(let last) = next else {
                    Issue.record("stream 3 got no answer: \(next), saw \(seen)")
                    return
                }
                #expect(last.type == RawHTTP2Frame.Kind.headers, "stream 3 ended with \(last)")
                #expect(seen.contains { $0.type == RawHTTP2Frame.Kind.data && $0.streamID == 3 })
            }
            await server.expectServesOthers()
            await server.stop()
        }
    }
}
