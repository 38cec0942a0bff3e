import Foundation
import Testing
import TestSupport

/// everything.proto's generated messages against Python's protobuf: values built from the
/// fixture's descriptors (every scalar kind at its edges, zero values with presence, each oneof
/// arm, maps of every key kind, nesting, unknown fields) decode and re-encode in Swift to
/// Python's deterministic bytes, and Python reads Swift's bytes back as the value it wrote.
@Suite struct PythonRoundTripTests {
    @Test func everyFixtureMessage_roundTripsThroughPythonAndSwift() async throws {
        let root = RepositoryPaths.root
        let report = try await DescriptorCorpus(
            roots: [root.appendingPathComponent("Tests/ProtocGenTests/Fixtures"), root.appendingPathComponent("proto-docs")],
            files: ["everything.proto"], registry: EverythingMessageTypes.byProtoName).check()
        #expect(report.types == Set(EverythingMessageTypes.byProtoName.keys))
        #expect(report.values.count >= 5 * report.types.count)
        for failure in report.failures {
            Issue.record("\(failure)")
        }
    }
}
