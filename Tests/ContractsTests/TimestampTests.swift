import Contracts
import Testing

/// google.protobuf.Timestamp as the services read it: any int64 decodes, so its microseconds
/// must be defined for every value a client can send.
@Suite struct TimestampTests {
    @Test func microseconds_roundTrip_insideTheRange() {
        for microseconds: Int64 in [0, 1, -1, 1_700_000_000_123_456, -62_135_596_800_000_000, 253_402_300_799_999_999] {
            #expect(Timestamp(microseconds: microseconds).microseconds == microseconds)
        }
    }

    @Test func microseconds_clampToTheRange_outsideIt() {
        let first = Timestamp.minimumSeconds * 1_000_000
        let last = Timestamp.maximumSeconds * 1_000_000 + 999_999
        #expect(Timestamp(seconds: .max, nanos: .max).microseconds == last)
        #expect(Timestamp(seconds: 9_223_372_036_855).microseconds == Timestamp.maximumSeconds * 1_000_000)
        #expect(Timestamp(seconds: .min, nanos: .min).microseconds == first)
        #expect(Timestamp(seconds: 0, nanos: -5).microseconds == 0)
        // Any two times a client sends are at most this far apart: their difference fits.
        #expect(last - first < Int64.max / 10)
    }

    @Test(arguments: [
        (Timestamp(seconds: Timestamp.minimumSeconds), true), (Timestamp(seconds: Timestamp.maximumSeconds, nanos: 999_999_999), true),
        (Timestamp(seconds: 0), true), (Timestamp(seconds: Timestamp.maximumSeconds + 1), false),
        (Timestamp(seconds: Timestamp.minimumSeconds - 1), false), (Timestamp(seconds: 1_700_000_000, nanos: -1), false),
        (Timestamp(seconds: 1_700_000_000, nanos: 1_000_000_000), false), (Timestamp(seconds: 1_700_000_000, nanos: 1_500_000_000), false),
    ])
    func isValid_isGoogleProtobufTimestampsRange(time: Timestamp, valid: Bool) {
        #expect(time.isValid == valid)
        #expect(time.validMicroseconds == (valid ? time.microseconds : nil))
    }
}
