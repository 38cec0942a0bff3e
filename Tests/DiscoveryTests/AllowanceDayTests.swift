@testable import Discovery
import Runtime
import Testing

/// The UTC day allowances are counted in, and the test-only clock offset that only a test may set.
@Suite struct AllowanceDayTests {
    @Test(arguments: [
        (Int64(0), Int32(0), Int64(86_400)),
        (86_399, 0, 86_400),
        (86_400, 1, 172_800),
        (1_795_000_000, 20_775, 1_795_046_400),
        (-1, -1, 0),
    ])
    func day_andItsReset(unixSeconds: Int64, day: Int32, resetsAt: Int64) {
        let allowance = AllowanceDay(containing: unixSeconds)
        #expect(allowance.number == day)
        #expect(allowance.resetsAt == resetsAt)
    }

    @Test func clockOffset_isRefusedOutsideTests_andShiftsTheDayInThem() throws {
        #expect(throws: ConfigurationError.self) {
            try DiscoverySettings.load(from: EnvironmentReader(environment: Environment(["RV_DISCOVERY_CLOCK_OFFSET_SECONDS": "60"])))
        }
        #expect(throws: ConfigurationError.self) {
            try DiscoverySettings.load(from: EnvironmentReader(environment: Environment([
                "RV_DISCOVERY_TEST_CLOCK": "1", "RV_DISCOVERY_CLOCK_OFFSET_SECONDS": "soon",
            ])))
        }
        let settings = try DiscoverySettings.load(from: EnvironmentReader(environment: Environment([
            "RV_DISCOVERY_TEST_CLOCK": "1", "RV_DISCOVERY_CLOCK_OFFSET_SECONDS": "86400",
        ])))
        let real = AllowanceClock().today().number
        let shifted = settings.clock.today().number
        #expect(shifted == real + 1 || shifted == real + 2)  // + 2: a midnight passed between the reads
        #expect(try DiscoverySettings.load(from: EnvironmentReader(environment: Environment([:]))).clock.offsetSeconds == 0)
    }
}
