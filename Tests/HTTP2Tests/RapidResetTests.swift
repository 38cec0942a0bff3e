import Testing
import TestSupport

extension HTTP2ServerTests {
    /// CVE-2023-44487: streams opened and reset as fast as the peer can write.
    @Suite struct RapidResetTests {
        @Test func headersAndResetFlood_getsGoawayAndClose() async throws {
            let server = try TestServer()
            let rssBefore = ProcessMemory.residentBytes()
            let peer = try RawHTTP2Peer(port: server.port)
            try peer.sendPreface()
            try peer.acknowledgeServerSettings()

            let headers = HPACKLiteralEncoder.encode(GRPC.requestHeaders(path: GRPC.unaryCall))
            let request = GRPC.unaryRequest()
            let start = ContinuousClock.now
            var sent = 0
            var batch: [UInt8] = []
            flood: for streamID in stride(from: UInt32(1), to: 20_001, by: 2) {
                batch += RawHTTP2Peer.headersFrame(streamID: streamID, block: headers, endStream: false, endHeaders: true).encoded
                batch += RawHTTP2Frame(type: RawHTTP2Frame.Kind.data, flags: RawHTTP2Frame.Flags.endStream,
                                       streamID: streamID, payload: request).encoded
                batch += RawHTTP2Peer.rstStreamFrame(streamID: streamID, errorCode: 0x8).encoded
                if batch.count > 16 << 10 || streamID == 19_999 {
                    do {
                        try peer.write(batch)
                    } catch {
                        break flood
                    }
                    sent = Int(streamID + 1) / 2
                    batch.removeAll(keepingCapacity: true)
                }
            }
            let frames = peer.readUntilClosed(timeout: .seconds(5))
            let elapsed = ContinuousClock.now - start
            let goaway = frames?.first { $0.type == RawHTTP2Frame.Kind.goaway }
            #expect(frames != nil, "the server kept the flooding connection open")
            #expect(goaway != nil && goaway?.errorCode != 0, "expected a GOAWAY with an error code")
            #expect(elapsed < .seconds(5))
            let drained = await server.waitForHandlersToFinish()
            #expect(drained, "\(server.gauge.active) handlers still running after the flood")
            let rssAfter = ProcessMemory.residentBytes()
            #expect(rssAfter - rssBefore < 64 << 20)
            Measure.log("rapid reset: wrote \(sent) HEADERS+DATA+RST before the server closed; GOAWAY error \(goaway?.errorCode ?? 0) "
                        + "last stream \(goaway?.goawayLastStreamID ?? 0); closed after \(Measure.milliseconds(elapsed)) ms; "
                        + "handlers started \(server.gauge.started), peak concurrent \(server.gauge.peak); "
                        + "RSS \(Measure.mebibytes(rssBefore)) -> \(Measure.mebibytes(rssAfter))")
            await server.expectServesOthers()
            await server.stop()
        }
    }
}
