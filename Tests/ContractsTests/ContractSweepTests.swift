import Foundation
import Testing
import TestSupport

/// The contract sweep (issue 25; `Fixtures/contract_sweep.py`): every RPC of every service in
/// proto-docs, called over the wire against the real executables with no, garbage, foreign and
/// other apps' tokens and with hostile inputs (empty, 1 MiB and invalid UTF-8 strings, malformed
/// ids, out-of-range timestamps, unknown enum values, 100,000-entry lists, extreme numbers,
/// truncated and trailing-garbage encodings). Every answer must come within 10 s, never be
/// INTERNAL or UNKNOWN, carry an ErrorInfo reason the RPC's package (or platform.proto) declares
/// with its declared status when it is not OK, and keep grpc-message and the trailers under 8 KiB.
///
/// About two minutes on a 2-core machine; RV_CONTRACT_SWEEP=0 leaves it out. Alone:
/// `bash Tests/run-swift-tests.sh --filter ContractSweepTests`, or the script itself (README,
/// "Contracts").
@Suite struct ContractSweepTests {
    static let script = RepositoryPaths.root.appendingPathComponent("Tests/ContractsTests/Fixtures/contract_sweep.py")
    static let enabled = ProcessInfo.processInfo.environment["RV_CONTRACT_SWEEP"] != "0"

    @Test(.enabled(if: ContractSweepTests.enabled, "RV_CONTRACT_SWEEP=0 leaves the sweep out"))
    func everyRPC_answersWithinTheContract_toHostileCallers() async throws {
        // Fails with the db.sh hint when Postgres is down, rather than a start-up timeout.
        try await TestDatabase.makePool(TestDatabase.configuration(role: "identity", poolSize: 1)).close()
        var environment: [String: String] = [:]
        for service in JourneyStack.services {
            environment["RV_PG_URL_\(service.uppercased())"] = DiscoveryStack.postgresURL(role: service)
        }
        environment["RV_MEDIA_URL_SECRET"] = MediaStack.urlSecret
        await MediaBackendLock.shared.acquire("local")
        environment["RV_MEDIA_STORAGE_DIR"] = MediaStack.retainSharedStorage()
        let binDirectory = URL(fileURLWithPath: try RepositoryPaths.builtExecutable("identity")).deletingLastPathComponent().path
        let result: PythonScript.Result
        do {
            result = try await PythonScript.run([Self.script.path, "--proto-root", RepositoryPaths.root.appendingPathComponent("proto-docs").path,
                                                 "--bin-dir", binDirectory], input: Data(), environment: environment)
        } catch {
            MediaStack.releaseSharedStorage()
            await MediaBackendLock.shared.release()
            throw error
        }
        MediaStack.releaseSharedStorage()
        await MediaBackendLock.shared.release()
        let failures = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(result.exitCode == 0 && failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(String(decoding: result.errors, as: UTF8.self))")
    }
}
