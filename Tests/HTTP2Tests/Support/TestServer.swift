import Contracts
import HTTP2
import IOLoop
import InteropServer
import RPC
import Synchronization
import Testing
import Wire
import TestSupport

/// An `RPCServer` with `TestService` and `EchoService` on its own event loops, for one test.
final class TestServer: Sendable {
    let server: RPCServer
    let port: Int
    let gauge = HandlerGauge()
    private let group: EventLoopGroup

    init(_ configure: (inout RPCServerConfiguration) -> Void = { _ in }) throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 2
        configure(&configuration)
        let group = try EventLoopGroup(loopCount: configuration.loopCount, name: "rv-test-server")
        self.group = group
        server = try RPCServer(configuration: configuration, services: [TestService(), EchoService()],
                               interceptors: [gauge], group: group)
        port = try server.start()
    }

    /// Shuts the server down and ends its loops.
    func stop(gracePeriod: Duration = .milliseconds(200)) async {
        await server.shutdown(gracePeriod: gracePeriod)
        group.shutdown()
    }

    /// A fresh `RPCClient` makes a normal unary call and gets the right answer.
    func expectServesOthers(sourceLocation: SourceLocation = #_sourceLocation) async {
        let client = RPCClient(host: "127.0.0.1", port: port)
        defer { client.close() }
        var request = GRPCTesting.SimpleRequest()
        request.responseSize = 314
        do {
            let response = try await client.unary(path: GRPC.unaryCall, request: request,
                                                  as: GRPCTesting.SimpleResponse.self,
                                                  options: CallOptions(timeout: .seconds(5)))
            #expect(response.message.payload?.body.count == 314, sourceLocation: sourceLocation)
        } catch {
            Issue.record("a normal call failed: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Waits until no handler runs; false if some still do after `timeout`.
    func waitForHandlersToFinish(timeout: Duration = .seconds(3)) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while gauge.active > 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}

/// Counts handlers as they run, through the interceptor chain every call passes.
final class HandlerGauge: ServerInterceptor {
    private let counts = Mutex((active: 0, peak: 0, started: 0))

    var active: Int { counts.withLock { $0.active } }
    var peak: Int { counts.withLock { $0.peak } }
    var started: Int { counts.withLock { $0.started } }

    nonisolated(nonsending) func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws {
        counts.withLock {
            $0.active += 1
            $0.started += 1
            $0.peak = max($0.peak, $0.active)
        }
        defer { counts.withLock { $0.active -= 1 } }
        try await next()
    }
}

/// `test.Echo/Echo`: answers a SimpleRequest with its own payload, to check bytes end to end.
struct EchoService: RPCService {
    var serviceName: String { "test.Echo" }

    func register(in router: inout RPCRouter) {
        router.unary(serviceName, "Echo") { (request: GRPCTesting.SimpleRequest, _) in
            var response = GRPCTesting.SimpleResponse()
            response.payload = request.payload
            return response
        }
    }
}

/// gRPC requests as a raw peer writes them.
enum GRPC {
    static let unaryCall = "/grpc.testing.TestService/UnaryCall"
    static let streamingOutputCall = "/grpc.testing.TestService/StreamingOutputCall"
    static let echo = "/test.Echo/Echo"

    static func requestHeaders(path: String) -> [(String, String)] {
        [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
         ("content-type", "application/grpc"), ("te", "trailers")]
    }

    /// A message with its 5-byte gRPC prefix (uncompressed).
    static func framed(_ message: some ProtoMessage) -> [UInt8] {
        let payload = message.serializedBytes()
        let length = UInt32(payload.count)
        return [0, UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16),
                UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)] + payload
    }

    static func unaryRequest(responseSize: Int32 = 16) -> [UInt8] {
        var request = GRPCTesting.SimpleRequest()
        request.responseSize = responseSize
        return framed(request)
    }

    static func streamingRequest(count: Int, size: Int32, intervalUs: Int32 = 0) -> [UInt8] {
        var request = GRPCTesting.StreamingOutputCallRequest()
        request.responseParameters = Array(repeating: GRPCTesting.ResponseParameters(size: size, intervalUs: intervalUs),
                                           count: count)
        return framed(request)
    }
}

/// Measurements the suite prints for the report.
enum Measure {
    static func log(_ text: String) { print("[h2-measure] \(text)") }

    static func mebibytes(_ bytes: Int) -> String {
        String(Double(bytes * 10 / (1 << 20)) / 10) + " MiB"
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
