import ArgumentParser
import GatewayClient
import RPC

extension GlobalOptions {
    /// Runs `body` with a client of `app`; a failed call is reported on stderr and exits 1.
    func withClient(app: String? = nil, _ body: (GatewayClient, Output) async throws -> Void) async throws {
        let output = self.output
        let client: GatewayClient
        let sessionFile: String
        do {
            sessionFile = try sessionPath(app: appID(default: app))
            client = try makeClient(app: app)
        } catch let error as ValidationError {
            throw error
        } catch {
            output.report(message: "\(error)")
            throw ExitCode.failure
        }
        defer { client.close() }
        await SessionLock.refreshIfNeeded(client, sessionPath: sessionFile)
        do {
            try await body(client, output)
        } catch let error as RPCError {
            output.report(error)
            throw ExitCode.failure
        } catch let error as CLIError {
            output.report(message: error.description)
            throw ExitCode.failure
        }
    }
}
