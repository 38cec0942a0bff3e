import Foundation
import Testing

/// The Swift codec and proto-docs/ agree (ARCHITECTURE.md, "The wire"): every message is
/// encoded in Swift and decoded by Python's protobuf with classes generated from the .proto,
/// and back. One Python process answers every request of the run (`PythonProtobuf`); when
/// python3, protobuf or grpcio-tools is missing every test here fails with Python's message.
@Suite struct ConformanceTests {
    static let cases = ConformanceCase.grpcTesting + ConformanceCase.rpc + ConformanceCase.events + ConformanceCase.bench
        + ConformanceCase.identity + ConformanceCase.devices + ConformanceCase.membership
        + ConformanceCase.profiles + ConformanceCase.safety

    static let unknownFieldsCases = UnknownFieldsCase.all

    // MARK: - Swift → Python → Swift

    @Test(arguments: cases)
    func swiftEncoding_decodedByPython_holdsTheJSONValues(_ sample: ConformanceCase) async throws {
        let decoded = try await Self.reply(sample, .pythonDecode)
        let fromJSON = try await Self.reply(sample, .pythonEncode)
        #expect(decoded.json == fromJSON.json, "swift bytes \(sample.swiftBytes.hexPreview)")
    }

    @Test(arguments: cases)
    func pythonReencoding_decodedBySwift_equalsTheOriginal(_ sample: ConformanceCase) async throws {
        let reencoded = try await Self.reply(sample, .pythonDecode).bytes()
        try sample.expectDecodesToValue(reencoded, "python re-encoding")
        #expect(try sample.reencode(sample.swiftBytes) == sample.swiftBytes)
    }

    // MARK: - Python → Swift

    @Test(arguments: cases)
    func pythonEncodingOfJSON_decodedBySwift_equalsTheValue(_ sample: ConformanceCase) async throws {
        let encoded = try await Self.reply(sample, .pythonEncode).bytes()
        try sample.expectDecodesToValue(encoded, "python encoding of the JSON")
    }

    // MARK: - Bytes

    /// Protobuf promises no canonical encoding, but for these messages Swift and Python's
    /// deterministic serialization both write set fields once, in field-number order, with
    /// minimal varints, so the bytes must be identical; only map entries may be ordered
    /// differently (see `ConformanceCase.errorInfo`'s "prefixKeys").
    @Test(arguments: cases)
    func swiftBytes_equalPythonDeterministicBytes(_ sample: ConformanceCase) async throws {
        for step in [Step.pythonEncode, .pythonDecode] {
            let python = try await Self.reply(sample, step).bytes()
            switch sample.bytes {
            case .identical:
                #expect(sample.swiftBytes.hex == python.hex, "python \(step.rawValue)")
            case .sameFieldsInAnotherOrder:
                let swiftFields = try WireFields.split(sample.swiftBytes).map(\.hex)
                let pythonFields = try WireFields.split(python).map(\.hex)
                #expect(swiftFields.sorted() == pythonFields.sorted(), "python \(step.rawValue)")
            }
        }
    }

    // MARK: - Unknown fields

    /// Python parses Swift's bytes as grpc.testing.Empty, keeping every field as unknown, and
    /// writes them back unchanged; Swift still decodes the original.
    @Test(arguments: cases)
    func swiftEncoding_keptUnknownByPython_decodesUnchanged(_ sample: ConformanceCase) async throws {
        let kept = try await Self.reply(sample, .pythonKeepUnknown).bytes()
        #expect(kept == sample.swiftBytes)
        try sample.expectDecodesToValue(kept, "python's unknown fields")
    }

    @Test(arguments: unknownFieldsCases)
    func pythonEncoding_withFieldsUnknownToSwift_decodesTheKnownOnes(_ sample: UnknownFieldsCase) async throws {
        let encoded = try await Self.reply(id: "unknown \(sample.name)").bytes()
        try sample.expectDecodesToValue(encoded)
    }

    // MARK: - Coverage

    @Test func everyMessageInProtoDocs_hasCases() async throws {
        let listed = try await Self.reply(id: "list").json ?? ""
        let names = try JSONDecoder().decode([String].self, from: Data(listed.utf8))
        let covered = Set(Self.cases.map(\.protoName))
        #expect(!names.isEmpty)
        for name in names {
            #expect(covered.contains(name), "no conformance cases for \(name)")
        }
    }

    // MARK: - The Python batch

    enum Step: String {
        case pythonDecode = "decode"
        case pythonEncode = "encode"
        case pythonKeepUnknown = "keep-unknown"
    }

    static let requests: [PythonProtobuf.Request] = {
        var requests = [PythonProtobuf.Request(id: "list", op: "list", type: "", argument: "null")]
        for sample in cases {
            requests.append(.decode(id(sample, .pythonDecode), sample.protoName, sample.swiftBytes))
            requests.append(.encode(id(sample, .pythonEncode), sample.protoName, json: sample.json))
            requests.append(.decode(id(sample, .pythonKeepUnknown), "grpc.testing.Empty", sample.swiftBytes))
        }
        for sample in unknownFieldsCases {
            requests.append(.encode("unknown \(sample.name)", sample.protoName, json: sample.json))
        }
        return requests
    }()

    /// Python's replies, computed once for the whole suite.
    static let replies = Task.detached { try PythonProtobuf.run(requests) }

    static func id(_ sample: ConformanceCase, _ step: Step) -> String {
        "\(sample.name) \(step.rawValue)"
    }

    static func reply(_ sample: ConformanceCase, _ step: Step) async throws -> PythonProtobuf.Reply {
        try await reply(id: id(sample, step))
    }

    /// The reply to request `id`; throws Python's error for it.
    static func reply(id: String) async throws -> PythonProtobuf.Reply {
        let replies = try await replies.value
        guard let reply = replies[id] else {
            throw PythonProtobuf.Failure("no python reply for \(id)")
        }
        if let error = reply.error {
            throw PythonProtobuf.Failure("python failed on \(id): \(error)")
        }
        return reply
    }
}
