import Testing
import Wire

/// Cross-check against Python protobuf: Fixtures/PythonGolden.swift was produced from
/// Tests/WireGolden/wire_test.proto by Tests/WireGolden/make_golden.py.
@Suite struct PythonGoldenTests {
    @Test(arguments: GoldenCases.all.map(\.name))
    func encode_matchesPython(name: String) throws {
        let entry = try #require(GoldenCases.all.first { $0.name == name })
        #expect(entry.message.serializedBytes().hex == entry.golden.hex)
    }

    @Test(arguments: GoldenCases.all.map(\.name))
    func decode_pythonBytes(name: String) throws {
        let entry = try #require(GoldenCases.all.first { $0.name == name })
        let decoded = try TestMessage(serializedBytes: entry.golden)
        // -0.0 == 0.0 in Swift, so compare the bits separately.
        #expect(decoded == entry.message)
        #expect(decoded.doubleValue.bitPattern == entry.message.doubleValue.bitPattern)
    }
}
