#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// The first five minutes: as root, with the checkout where the database's OS user cannot
/// reach it (a clone in /root, mode 700), `db.sh start` — what `make test` and `make run` call
/// first — picks a reachable cluster folder by itself, one per checkout, says where, and the
/// cluster answers (compose/local/first_run_check.sh, on a port of its own).
@Suite struct FirstRunTests {
    @Test(.enabled(if: getuid() == 0, "the cluster runs as another OS user only when db.sh runs as root"))
    func checkoutsInAMode700Folder_getAClusterEach_andSayWhere() async throws {
        let script = RepositoryPaths.root.appendingPathComponent("compose/local/first_run_check.sh").path
        let result = try await Subprocess.run("/bin/bash", [script, String(try LocalPort.free())], timeout: .seconds(120))
        #expect(result.exitCode == 0, "\(result.output)")
        #expect(result.output.contains("query ok"))
        let folders = result.output.split(separator: "\n").first { $0.hasPrefix("DATA FOLDERS ") }?
            .dropFirst("DATA FOLDERS ".count).split(separator: " ") ?? []
        #expect(folders.count == 2 && Set(folders).count == 2, "\(result.output)")
    }
}
