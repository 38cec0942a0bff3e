package import Foundation

/// A service's release from before its newest migration, built by `Tests/previous-release.sh`
/// and kept under `.build/previous-release/<service>/`: the upgrade tests run it on the schema
/// this build migrated (compose/SCALING.md, "Upgrades without downtime").
package struct PreviousRelease: Sendable {
    package let service: String
    /// The commit it was built from (`RV_PREVIOUS_RELEASE` chooses another).
    package let commit: String
    package let executable: String

    /// The release, built first when the cache does not hold it (minutes; `make test` builds it
    /// beside the package, so its tests find it built).
    package static func build(_ service: String) async throws -> PreviousRelease {
        let script = RepositoryPaths.root.appendingPathComponent("Tests/previous-release.sh").path
        let result = try await Subprocess.run("/bin/bash", [script, service], timeout: .seconds(1800),
                                              separateErrorOutput: true)
        guard result.exitCode == 0,
              let executable = result.output.split(separator: "\n").last.map(String.init),
              FileManager.default.isExecutableFile(atPath: executable) else {
            throw SubprocessError(message: "Tests/previous-release.sh \(service) failed:\n\(result.errorOutput)")
        }
        let marker = RepositoryPaths.root.appendingPathComponent(".build/previous-release/\(service)/built").path
        let commit = try String(contentsOfFile: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return PreviousRelease(service: service, commit: commit, executable: executable)
    }
}
