import ArgumentParser
import CryptoCore
import Foundation
import GatewayClient
import HTTP2
import RPC

/// `rendezvous health --address host:port [--service NAME]`: `grpc.health.v1.Health/Check`;
/// exits 0 when SERVING and 1 otherwise (not serving, unknown service, no answer in time, no
/// connection). The containers' health checks run exactly this.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health", abstract: "Check a server's grpc.health.v1 status: exit 0 when SERVING, 1 otherwise.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "The service to ask about (default: the server as a whole).") var service = ""

    func run() async throws {
        let (host, port) = try options.endpoint()
        let output = options.output
        let security: TransportSecurity
        do {
            security = switch options.security(host: host, port: port) {
            case .plaintext: .plaintext
            case .tls: .tls(try TLSContext.makeClient(trustRootsPEMFile: nil))
            case .tlsTrustingRoots(let file): .tls(try TLSContext.makeClient(trustRootsPEMFile: file))
            case .tlsTrustingRootsPEM(let pem): .tls(try TLSContext.makeClient(trustRootsPEM: pem))
            }
        } catch {
            output.report(message: "TLS: \(error)")
            throw ExitCode.failure
        }
        let client = RPCClient(host: host, port: port, security: security)
        defer { client.close() }
        let timeout = options.deadline
        let service = self.service
        let status: String
        do {
            // The call's deadline does not cover connecting; the race bounds the whole check.
            let response = try await withThrowingTaskGroup(of: HealthCheckResponse?.self) { group in
                group.addTask {
                    try await HealthClient(client: client).check(HealthCheckRequest(service: service),
                                                                 options: CallOptions(timeout: timeout))
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                // Safe: two tasks were added, so next() returns a value before the group is empty.
                return try await group.next()!
            }
            guard let response else {
                throw RPCError(code: .deadlineExceeded, message: "no answer from \(host):\(port) within \(options.timeout) s")
            }
            status = Self.name(response.status)
        } catch let error as RPCError {
            output.report(error)
            throw ExitCode.failure
        } catch {
            output.report(message: "\(error)")
            throw ExitCode.failure
        }
        output.emit(["status": status, "service": service]) { status }
        if status != "SERVING" { throw ExitCode.failure }
    }

    static func name(_ status: HealthCheckResponse.ServingStatus) -> String {
        switch status {
        case .serving: "SERVING"
        case .notServing: "NOT_SERVING"
        case .serviceUnknown: "SERVICE_UNKNOWN"
        default: "UNKNOWN"
        }
    }
}
