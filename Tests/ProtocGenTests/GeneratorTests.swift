import Foundation
@testable import ProtocGen
import TestSupport
import Testing
import Wire

/// The generator itself, in process: naming rules, parameters, refusals and determinism.
@Suite struct GeneratorTests {
    @Test(arguments: [
        ("account_id", "accountID"), ("photo_ids", "photoIDs"), ("image_url", "imageURL"), ("id", "id"),
        ("max_age_seconds", "maxAgeSeconds"), ("sha256_hex", "sha256Hex"), ("type", "type"), ("fillServerId", "fillServerID"),
    ])
    func fieldNames_followTheNamingRules(_ proto: String, _ swift: String) {
        #expect(SwiftName.lowerCamel(proto) == swift)
    }

    @Test(arguments: [
        ("PUSH_PLATFORM_APNS", "PushPlatform", "apns"), ("PUSH_TOKEN_INACTIVE_REASON_BAD_DEVICE_TOKEN", "PushTokenInactiveReason", "badDeviceToken"),
        ("NOT_SERVING", "ServingStatus", "notServing"), ("USER_NOT_FOUND", "ErrorReason", "userNotFound"),
        ("ERROR_REASON_UNSPECIFIED", "ErrorReason", "unspecified"), ("ID_TOKEN_EXPIRED", "ErrorReason", "idTokenExpired"),
    ])
    func enumCases_dropTheEnumsPrefix(_ value: String, _ enumName: String, _ swift: String) {
        #expect(SwiftName.enumCase(value, enumName: enumName) == swift)
    }

    @Test(arguments: ["Color=red", "Visibility=open", "Namespace=nocolon", "Registry=1abc", "noequals"])
    func badParameters_areRefused(_ parameter: String) {
        #expect(throws: GeneratorError.self) { try GeneratorOptions(parameter: parameter) }
    }

    static func file(_ name: String, syntax: String = "proto3", messages: [MessageDescriptor]) -> FileDescriptor {
        var file = FileDescriptor()
        file.name = name
        file.package = "x.v1"
        file.syntax = syntax
        file.messages = messages
        return file
    }

    static func request(_ files: [FileDescriptor], parameter: String = "") -> CodeGeneratorRequest {
        var request = CodeGeneratorRequest()
        request.protoFiles = files
        request.filesToGenerate = files.map(\.name)
        request.parameter = parameter
        return request
    }

    static func message(_ name: String, field: FieldDescriptor? = nil) -> MessageDescriptor {
        var message = MessageDescriptor()
        message.name = name
        if let field { message.fields = [field] }
        return message
    }

    @Test func proto2_groups_andUnusableTypeNames_areRefusedWithAReason() {
        var group = FieldDescriptor()
        group.name = "g"
        group.number = 1
        group.kindNumber = FieldDescriptor.Kind.group.rawValue
        let cases: [(CodeGeneratorRequest, String)] = [
            (Self.request([Self.file("a.proto", syntax: "proto2", messages: [])]), "only proto3"),
            (Self.request([Self.file("a.proto", messages: [Self.message("M", field: group)])]), "groups"),
            (Self.request([Self.file("a.proto", messages: [Self.message("Type")])]), "cannot be a Swift type name"),
            (Self.request([], parameter: "Bogus=1"), "unknown parameter"),
        ]
        for (request, expected) in cases {
            let response = Generator.respond(to: request)
            #expect(response.error?.contains(expected) == true, "\(response.error ?? "no error")")
            #expect(response.files.isEmpty)
        }
    }

    /// The same request in another file order gives the same bytes: output never depends on
    /// protoc's order or on dictionary iteration.
    @Test func output_isDeterministic() async throws {
        let request = try await Self.protoDocsRequest()
        var shuffled = request
        shuffled.filesToGenerate.reverse()
        let first = try Generator(request: request).generate()
        let second = try Generator(request: shuffled).generate()
        #expect(first.map(\.name) == second.map(\.name))
        #expect(first == second)
        #expect(first.count > 5)
    }

    /// A CodeGeneratorRequest for proto-docs' contracts, as protoc would send it.
    static func protoDocsRequest() async throws -> CodeGeneratorRequest {
        let root = RepositoryPaths.root.appendingPathComponent("proto-docs")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("rv-descriptors-\(UUID().uuidString).pb")
        defer { try? FileManager.default.removeItem(at: output) }
        let files = ["rendezvous/identity/v1/identity.proto", "rendezvous/identity/v1/safety.proto",
                     "rendezvous/events/v1/events.proto", "grpc/testing/test.proto", "grpc/testing/messages.proto",
                     "grpc/testing/empty.proto"]
        let run = try await Subprocess.run("/usr/bin/env", ["protoc", "-I", root.path, "-I", "/usr/include",
                                                           "--include_imports", "--include_source_info",
                                                           "--descriptor_set_out=\(output.path)"] + files.map { root.appendingPathComponent($0).path })
        try #require(run.exitCode == 0, "protoc: \(run.output)")
        var set = try FileDescriptorSet(serializedBytes: [UInt8](try Data(contentsOf: output)),
                                        limits: DecodingLimits(maxMessageSize: 64 << 20))
        set.files = set.files.filter { !$0.name.isEmpty }
        var request = CodeGeneratorRequest()
        request.protoFiles = set.files
        request.filesToGenerate = files
        request.parameter = "Namespace=grpc.testing:GRPCTesting,Registry=ContractsMessageTypes"
        return request
    }
}

/// google.protobuf.FileDescriptorSet: file = 1.
struct FileDescriptorSet: ProtoMessage {
    var files: [FileDescriptor] = []

    init() {}

    func encode(to writer: inout ProtoWriter) {
        for file in files { writer.writeMessage(field: 1, file) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: try reader.readRepeatedMessage(into: &files)
        default: try reader.skipField()
        }
    }
}
