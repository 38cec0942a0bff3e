import Foundation
import TestSupport
import Testing

/// The checked-in generated code is what protoc-gen-rendezvous makes of the .proto files now:
/// Shared/ProtocGen/generate.sh (the script behind `make generate`) runs into a temporary
/// folder and every file must match, with none missing or left over.
@Suite struct GeneratedCodeIsCurrentTests {
    static let folders = ["Shared/ContractTypes/Generated", "Shared/Contracts/Generated", "Shared/RPC/Generated", "Tests/ProtocGenTests/Generated"]

    @Test func checkedInFiles_equalTheGeneratorsOutput() async throws {
        let root = RepositoryPaths.root
        let plugin = try RepositoryPaths.builtExecutable("protoc-gen-rendezvous")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rv-generate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let run = try await Subprocess.run("/bin/bash", [root.appendingPathComponent("Shared/ProtocGen/generate.sh").path,
                                                         plugin, scratch.path])
        try #require(run.exitCode == 0, "generate.sh failed: \(run.output)")
        for folder in Self.folders {
            let expected = try Self.files(under: scratch.appendingPathComponent(folder))
            let actual = try Self.files(under: root.appendingPathComponent(folder))
            for name in Set(expected.keys).subtracting(actual.keys).sorted() {
                Issue.record("\(folder)/\(name) is missing: run `make generate` and commit it")
            }
            for name in Set(actual.keys).subtracting(expected.keys).sorted() {
                Issue.record("\(folder)/\(name) is not generated from any .proto any more: run `make generate`")
            }
            for (name, text) in expected.sorted(by: { $0.key < $1.key }) {
                guard let checkedIn = actual[name], checkedIn != text else { continue }
                Issue.record("\(folder)/\(name) differs from what protoc-gen-rendezvous generates now (first difference: \(Self.firstDifference(checkedIn, text))); run `make generate` and commit the result")
            }
        }
    }

    static func files(under folder: URL) throws -> [String: String] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return [:]
        }
        var files: [String: String] = [:]
        let prefix = folder.standardizedFileURL.path + "/"
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let path = url.standardizedFileURL.path
            files[String(path.dropFirst(prefix.count))] = try String(contentsOf: url, encoding: .utf8)
        }
        return files
    }

    static func firstDifference(_ old: String, _ new: String) -> String {
        let oldLines = old.split(separator: "\n", omittingEmptySubsequences: false)
        let newLines = new.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(oldLines.count, newLines.count) {
            let was = index < oldLines.count ? String(oldLines[index]) : "<end>"
            let now = index < newLines.count ? String(newLines[index]) : "<end>"
            if was != now { return "line \(index + 1): checked in `\(was)`, generated `\(now)`" }
        }
        return "none"
    }
}
