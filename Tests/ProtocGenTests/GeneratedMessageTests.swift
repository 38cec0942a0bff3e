import Contracts
import Testing
import Wire

/// The generated messages of everything.proto behave as proto3 says.
@Suite struct GeneratedMessageTests {
    typealias E = Everything.Everything

    static func roundTrip<M: ProtoMessage>(_ message: M) throws -> M {
        try M(serializedBytes: message.serializedBytes())
    }

    @Test(arguments: [
        E.Contact.email(""), .email("a@b.c"), .phoneNumber(0), .phoneNumber(-1),
        .address(Everything.Everything.Point()), .address(.init(latitude: 1.5, longitude: -2)),
        .favoriteColor(.unspecified), .favoriteColor(.init(rawValue: 99)),
    ])
    func everyOneofArm_survives_evenAtItsDefault(_ arm: E.Contact) throws {
        let message = E(contact: arm)
        #expect(!message.serializedBytes().isEmpty)
        #expect(try Self.roundTrip(message).contact == arm)
    }

    @Test func optionalFields_keepPresenceOfTheirDefault() throws {
        let unset = E()
        let zero = E(maybeCount: 0, maybeName: "", maybeColor: .unspecified)
        #expect(unset.serializedBytes().isEmpty)
        let decoded = try Self.roundTrip(zero)
        #expect(decoded.maybeCount == 0 && decoded.maybeName == "" && decoded.maybeColor == .unspecified)
        #expect(try Self.roundTrip(unset).maybeCount == nil)
    }

    @Test func maps_ofEveryKeyKind_roundTrip_andEncodeInKeyOrder() throws {
        var message = E()
        message.labels = ["b": "2", "a": "", "": "empty key"]
        message.pointsByID = [3: .init(latitude: 1), -7: .init()]
        message.colorsByFlag = [true: .red, false: .init(rawValue: 42)]
        message.blobs = [UInt64.max: [0, 255], 0: []]
        message.weights = [Int64.min: -0.0, 5: .infinity]
        let decoded = try Self.roundTrip(message)
        #expect(decoded == message)
        #expect(message.serializedBytes() == decoded.serializedBytes())
    }

    @Test func scalars_atTheirEdges_roundTrip() throws {
        let edges = Everything.Scalars(aDouble: -0.0, aFloat: .greatestFiniteMagnitude, anInt64: .min, aUint64: .max,
                                       anInt32: -1, aFixed64: .max, aFixed32: .max, aBool: true, aString: "é🇫🇷",
                                       someBytes: [0, 0xff], aUint32: .max, anSfixed32: .min, anSfixed64: .min,
                                       anSint32: .min, anSint64: .max)
        let decoded = try Self.roundTrip(edges)
        #expect(decoded == edges)
        #expect(decoded.aDouble.sign == .minus)
    }

    @Test func repeated_packedAndUnpacked_readEitherWay() throws {
        let message = Everything.Repeated(int32s: [1, -1, 300], colors: [.red, .init(rawValue: 7)], unpacked: [1, 2, 3])
        let bytes = message.serializedBytes()
        // int32s (field 5) packed: one tag, length-delimited; unpacked (21) one varint tag a value.
        #expect(bytes.starts(with: [5 << 3 | 2]))
        #expect(bytes.filter { $0 == UInt8(21 << 3 & 0xff) }.isEmpty == false)
        #expect(try Self.roundTrip(message) == message)
        // A repeated field written unpacked by another encoder still decodes.
        var writer = ProtoWriter()
        writer.writeInt32(field: 5, 4)
        writer.writeInt32(field: 5, 5)
        #expect(try Everything.Repeated(serializedBytes: writer.bytes).int32s == [4, 5])
    }

    @Test func keywordNamedFields_andRecursion_work() throws {
        var message = E(type: "t", default: true, class: 3)
        message.children = [E(accountID: "child", children: [E(accountID: "grandchild")])]
        #expect(try Self.roundTrip(message) == message)
    }

    @Test func unknownFields_areSkipped() throws {
        var writer = ProtoWriter()
        writer.writeString(field: 1, "kept")
        writer.writeString(field: 999, "unknown")
        writer.writeFixed64(field: 1000, 7)
        writer.writeInt64(field: 1001, -1)
        writer.writeFixed32(field: 1002, 7)
        #expect(try E(serializedBytes: writer.bytes) == E(accountID: "kept"))
    }

    @Test func reasons_carryTheirStatus_andName() {
        #expect(Everything.ErrorReason.sessionFull.statusCode == .failedPrecondition)
        #expect(Everything.ErrorReason.quotaExceeded.name == "QUOTA_EXCEEDED")
        #expect(Everything.ErrorReason(name: "INVALID_JOIN_CODE") == .invalidJoinCode)
        #expect(Everything.ErrorReason(name: "invalid_join_code") == nil)
    }

    @Test func theRegistry_listsEveryMessage() {
        #expect(Set(EverythingMessageTypes.byProtoName.keys) == [
            "rendezvous.testing.everything.v1.Everything", "rendezvous.testing.everything.v1.Everything.Point",
            "rendezvous.testing.everything.v1.Nothing", "rendezvous.testing.everything.v1.Repeated",
            "rendezvous.testing.everything.v1.Scalars",
        ])
    }
}
