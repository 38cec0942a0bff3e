import RPC
import Testing

@Suite struct GRPCTimeoutTests {
    static let units: [(String, UInt64)] = [
        ("1H", 3_600_000_000_000), ("2M", 120_000_000_000), ("3S", 3_000_000_000), ("4m", 4_000_000),
        ("5u", 5_000), ("6n", 6), ("0m", 0), ("00000001S", 1_000_000_000), ("99999999n", 99_999_999),
        ("2562047H", 2_562_047 * 3_600_000_000_000),
    ]

    @Test(arguments: units)
    func parse_everyUnit_givesNanoseconds(text: String, nanoseconds: UInt64) {
        #expect(GRPCTimeout.parse(text) == nanoseconds)
    }

    @Test(arguments: ["123456789n", "000000001S"])
    func parse_moreThanEightDigits_isRejected(text: String) {
        #expect(GRPCTimeout.parse(text) == nil)
    }

    @Test(arguments: ["99999999H", "5124096H", "6000000H"])
    func parse_overflow_saturates(text: String) {
        #expect(GRPCTimeout.parse(text) == UInt64.max)
    }

    @Test(arguments: ["", "S", "1", "1s", "1h", "1x", "-1S", "+1S", " 1S", "1 S", "1.5S", "１S", "1SS"])
    func parse_malformed_isRejected(text: String) {
        #expect(GRPCTimeout.parse(text) == nil)
    }

    static let encodings: [(UInt64, String)] = [
        (0, "0n"), (1, "1n"), (99_999_999, "99999999n"), (100_000_000, "100000u"), (100_000_001, "100001u"),
        (1_500_000_000_000, "1500000m"), (UInt64.max, "5124096H"),
    ]

    @Test(arguments: encodings)
    func encode_usesLargestFittingUnit_roundingUp(nanoseconds: UInt64, text: String) {
        #expect(GRPCTimeout.encode(nanoseconds: nanoseconds) == text)
        let parsed = GRPCTimeout.parse(text)
        #expect(parsed.map { $0 >= nanoseconds } == true)
    }
}
