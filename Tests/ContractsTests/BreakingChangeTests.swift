import Foundation
import Testing
import TestSupport

/// proto-docs/ stays wire- and source-compatible with its recorded baseline (like `buf breaking`),
/// checked by `Fixtures/breaking.py` against `Fixtures/baseline/descriptor_set.txtpb`; and each
/// rule of the checker fires on its before/after pair in `Fixtures/breaking-cases/<rule>/`.
@Suite struct BreakingChangeTests {
    static let fixtures = RepositoryPaths.root.appendingPathComponent("Tests/ContractsTests/Fixtures")
    static let script = fixtures.appendingPathComponent("breaking.py").path
    static let baseline = fixtures.appendingPathComponent("baseline/descriptor_set.txtpb").path
    static let breakingCases = fixtures.appendingPathComponent("breaking-cases")

    /// Every rule of the checker, in `breaking.py rules` order; each names a fixture folder.
    static let rules = [
        "file-removed", "package-changed", "message-removed",
        "field-removed", "field-name-unreserved", "field-renamed", "field-type-changed",
        "field-label-changed", "field-optional-changed", "field-oneof-changed", "field-json-name-changed",
        "reserved-removed",
        "enum-removed", "enum-value-removed", "enum-value-name-unreserved", "enum-value-renamed",
        "enum-value-renumbered", "reason-status-changed",
        "extension-removed",
        "service-removed", "rpc-removed", "rpc-request-changed", "rpc-response-changed", "rpc-streaming-changed",
    ]

    /// Fixture folders of changes that must pass: additions, reservations, moves within a package.
    static let compatibleCases = ["compatible"]

    @Test func protoDocs_keepTheBaselineContract() async throws {
        let protoDocs = RepositoryPaths.root.appendingPathComponent("proto-docs").path
        let result = try await Self.breaking(["check", "--baseline", Self.baseline, "--proto-root", protoDocs])
        #expect(result.exitCode == 0, """
            proto-docs/ breaks the contract recorded in \
            Tests/ContractsTests/Fixtures/baseline/descriptor_set.txtpb:
            \(result.output)
            Deployed clients and services still speak the recorded contract: keep it compatible \
            (reserve a removed field's or enum value's number and name, add a field or RPC instead \
            of changing one). If the break is intended and every caller is ready for it, record the \
            new contract with `make proto-baseline` and commit the baseline with the change.
            """)
    }

    @Test(arguments: rules)
    func breakingFixture_isReportedUnderItsRule(_ rule: String) async throws {
        let result = try await Self.compare(rule)
        let reported = Set(result.output.split(separator: "\n").compactMap(Self.rule(of:)))
        #expect(result.exitCode == 1, "\(rule): exit \(result.exitCode)\n\(result.output)")
        #expect(reported == [rule], "\(rule): other rules reported\n\(result.output)")
    }

    @Test(arguments: compatibleCases)
    func compatibleFixture_passes(_ name: String) async throws {
        let result = try await Self.compare(name)
        #expect(result.exitCode == 0, "\(name): exit \(result.exitCode)\n\(result.output)")
    }

    @Test func everyRule_hasAFixture_andEveryFixtureARule() async throws {
        let listed = try await Self.breaking(["rules"])
        try #require(listed.exitCode == 0, "\(listed.output)")
        let checkerRules = listed.output.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        #expect(checkerRules == Self.rules)
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.breakingCases.path)
        #expect(Set(folders) == Set(Self.rules + Self.compatibleCases))
    }

    /// Records `breaking-cases/<name>/before` as a baseline, then checks `<name>/after` against it.
    static func compare(_ name: String) async throws -> SubprocessResult {
        let folder = breakingCases.appendingPathComponent(name)
        let recorded = FileManager.default.temporaryDirectory
            .appendingPathComponent("rv-breaking-\(name)-\(UUID().uuidString).txtpb").path
        defer { try? FileManager.default.removeItem(atPath: recorded) }
        let snapshot = try await breaking(["snapshot", "--out", recorded,
                                           "--proto-root", folder.appendingPathComponent("before").path])
        try #require(snapshot.exitCode == 0, "snapshot of \(name)/before failed:\n\(snapshot.output)")
        return try await breaking(["check", "--baseline", recorded,
                                   "--proto-root", folder.appendingPathComponent("after").path])
    }

    /// Runs the checker; its report lines and any error (stdout and stderr) are in `output`.
    static func breaking(_ arguments: [String]) async throws -> SubprocessResult {
        try await Subprocess.run("/usr/bin/env", ["python3", script] + arguments, timeout: .seconds(60))
    }

    /// The rule of a report line `<file>: [<rule>] <element>: <detail>`, nil for other output.
    static func rule(of line: Substring) -> String? {
        guard let open = line.range(of: ": ["), let close = line[open.upperBound...].firstIndex(of: "]") else {
            return nil
        }
        return String(line[open.upperBound..<close])
    }
}
