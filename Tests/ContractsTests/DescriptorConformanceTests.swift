import Contracts
import Foundation
@testable import RPC
import Runtime
import Testing
import TestSupport
import Wire

/// The Swift codec and proto-docs/ agree (ARCHITECTURE.md, "The wire"), for every message of
/// every .proto: Python's protobuf builds values from the descriptors (edge values, presence of
/// zero values, every oneof arm, maps, nesting, unknown fields; `DescriptorCorpus`), Swift
/// decodes and re-encodes them byte for byte, and Python reads Swift's bytes back as the value
/// it wrote. No case lists: a message added to proto-docs is checked the day it lands, and one
/// without a generated Swift type fails here.
@Suite struct DescriptorConformanceTests {
    /// Generated types (OTLP's among them, in Runtime), plus the google.rpc status details RPC
    /// writes by hand (internal to RPC).
    static let registry: [String: any ProtoMessage.Type] = ContractsMessageTypes.byProtoName
        .merging(RPCMessageTypes.byProtoName) { first, _ in first }
        .merging(OTLPMessageTypes.byProtoName) { first, _ in first }
        .merging(["google.rpc.Status": StatusMessage.self, "google.rpc.ErrorInfo": ErrorInfoMessage.self]) { first, _ in first }

    static let report = Task.detached {
        try await DescriptorCorpus(roots: [RepositoryPaths.root.appendingPathComponent("proto-docs")], files: ["all"],
                                   registry: registry).check()
    }

    @Test func everyMessageInProtoDocs_roundTripsThroughPythonAndSwift() async throws {
        let report = try await Self.report.value
        for failure in report.failures {
            Issue.record("\(failure)")
        }
    }

    /// The corpus is not empty or thin: every proto-docs message has its values (empty, zeros,
    /// edge values, unknown fields), so a broken generator script cannot pass by checking nothing.
    @Test func everyMessage_hasEdgeAndUnknownFieldValues() async throws {
        let report = try await Self.report.value
        #expect(report.types.count >= Self.registry.count)
        for type in report.types {
            let names = Set(report.values.filter { $0.type == type }.map(\.name))
            #expect(names.isSuperset(of: ["empty", "zeros", "edge0", "edge1", "edge2", "unknown"]), "\(type): \(names.sorted())")
        }
    }

    /// Every registered Swift type is a message some .proto declares (a stale registry entry
    /// would mean generated code for a message that no longer exists).
    @Test func everyGeneratedType_isDeclaredInProtoDocs() async throws {
        let report = try await Self.report.value
        for name in Self.registry.keys.sorted() {
            #expect(report.types.contains(name), "\(name) has a Swift type but no .proto declares it")
        }
    }
}
