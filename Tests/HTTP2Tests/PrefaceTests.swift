import Testing
import TestSupport

extension HTTP2ServerTests {
    /// Connections that never become HTTP/2: bad prefaces, silence, and idleness.
    @Suite struct PrefaceTests {
        static let notHTTP2: [(String, [UInt8])] = [
            ("garbage", Array("\u{16}\u{03}\u{01}garbage-garbage-garbage-garbage-garbage".utf8)),
            ("HTTP/1.1", Array("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n".utf8)),
        ]

        @Test(arguments: notHTTP2)
        func notAPreface_closesPromptly(name: String, bytes: [UInt8]) async throws {
            let server = try TestServer()
            let peer = try RawHTTP2Peer(port: server.port)
            let start = ContinuousClock.now
            try peer.write(bytes)
            let frames = peer.readUntilClosed(timeout: .seconds(2))
            let elapsed = ContinuousClock.now - start
            #expect(frames != nil, "the server kept a \(name) connection open")
            #expect(elapsed < .milliseconds(500))
            Measure.log("\(name) preface: closed after \(Measure.milliseconds(elapsed)) ms")
            await server.expectServesOthers()
            await server.stop()
        }

        @Test func silentPeer_closedAfterHandshakeTimeout() async throws {
            let server = try TestServer { $0.http2.handshakeTimeout = .seconds(1) }
            let peer = try RawHTTP2Peer(port: server.port)
            let start = ContinuousClock.now
            let frames = peer.readUntilClosed(timeout: .seconds(4))
            let elapsed = ContinuousClock.now - start
            #expect(frames != nil, "a silent connection outlived the handshake timeout")
            #expect(elapsed >= .milliseconds(900))
            Measure.log("silent peer: closed after \(Measure.milliseconds(elapsed)) ms (handshakeTimeout 1 s)")
            await server.expectServesOthers()
            await server.stop()
        }

        @Test func prefaceWithoutSettings_closedAfterHandshakeTimeout() async throws {
            let server = try TestServer { $0.http2.handshakeTimeout = .seconds(1) }
            let peer = try RawHTTP2Peer(port: server.port)
            let start = ContinuousClock.now
            try peer.write(RawHTTP2Peer.preface)
            let frames = peer.readUntilClosed(timeout: .seconds(4))
            #expect(frames != nil)
            Measure.log("preface without SETTINGS: closed after \(Measure.milliseconds(ContinuousClock.now - start)) ms")
            await server.expectServesOthers()
            await server.stop()
        }

        @Test func idleConnection_getsGoawayThenClose() async throws {
            let server = try TestServer { $0.http2.idleTimeout = .seconds(1) }
            let peer = try RawHTTP2Peer(port: server.port)
            try peer.sendPreface()
            try peer.acknowledgeServerSettings()
            let start = ContinuousClock.now
            let frames = peer.readUntilClosed(timeout: .seconds(4))
            let elapsed = ContinuousClock.now - start
            let goaway = frames?.first { $0.type == RawHTTP2Frame.Kind.goaway }
            #expect(frames != nil, "an idle connection outlived the idle timeout")
            #expect(goaway?.errorCode == 0, "expected GOAWAY(NO_ERROR) before the close, got \(frames ?? [])")
            #expect(elapsed >= .milliseconds(900))
            Measure.log("idle connection: GOAWAY + close after \(Measure.milliseconds(elapsed)) ms (idleTimeout 1 s)")
            await server.expectServesOthers()
            await server.stop()
        }
    }
}
