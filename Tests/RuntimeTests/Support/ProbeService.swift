import Contracts
import RPC

/// A test service: `Echo` (unary, echoes the payload size), `Fail` (unary, always
/// FAILED_PRECONDITION) and `Slow` (server streaming: one response per parameter, after its interval).
struct ProbeService: RPCService {
    typealias Messages = GRPCTesting
    static let name = "rendezvous.test.v1.Probe"

    var serviceName: String { Self.name }

    func register(in router: inout RPCRouter) {
        router.unary(serviceName, "Echo") { (request: Messages.SimpleRequest, _) in
            var response = Messages.SimpleResponse()
            response.payload = Messages.Payload(body: [UInt8](repeating: 1, count: Int(request.responseSize)))
            return response
        }
        router.unary(serviceName, "Fail") { (_: Messages.SimpleRequest, _) -> Messages.SimpleResponse in
            throw RPCError(code: .failedPrecondition, message: "no", reason: "PROBE_FAILED")
        }
        router.serverStreaming(serviceName, "Slow") {
            (request: Messages.StreamingOutputCallRequest, writer: ResponseWriter<Messages.StreamingOutputCallResponse>, _) in
            for parameters in request.responseParameters {
                try await Task.sleep(for: .microseconds(Int(parameters.intervalUs)))
                let payload = Messages.Payload(body: [UInt8](repeating: 0, count: Int(parameters.size)))
                try await writer.write(Messages.StreamingOutputCallResponse(payload: payload))
            }
        }
    }

    static func slowRequest(responses: Int, interval: Duration) -> Messages.StreamingOutputCallRequest {
        var request = Messages.StreamingOutputCallRequest()
        let microseconds = Int32(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        request.responseParameters = (0..<responses).map { _ in Messages.ResponseParameters(size: 8, intervalUs: microseconds) }
        return request
    }
}
