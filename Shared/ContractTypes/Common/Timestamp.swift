public import Wire

/// A point in time: google.protobuf.Timestamp's layout (seconds = 1, nanos = 2), seconds since
/// the Unix epoch in UTC.
public struct Timestamp: ProtoMessage, Hashable, Comparable {
    public var seconds: Int64 = 0
    public var nanos: Int32 = 0

    public init() {}

    public init(seconds: Int64, nanos: Int32 = 0) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// Microseconds since the epoch (Postgres' timestamp precision).
    public init(microseconds: Int64) {
        var seconds = microseconds / 1_000_000
        var remainder = microseconds % 1_000_000
        if remainder < 0 {
            seconds -= 1
            remainder += 1_000_000
        }
        self.seconds = seconds
        self.nanos = Int32(remainder * 1000)
    }

    /// google.protobuf.Timestamp's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
    public static let minimumSeconds: Int64 = -62_135_596_800
    public static let maximumSeconds: Int64 = 253_402_300_799

    /// Whether google.protobuf.Timestamp can hold this time: seconds from 0001-01-01T00:00:00Z to
    /// 9999-12-31T23:59:59Z, nanos 0-999,999,999. Any int64 and int32 decode, so a server
    /// refuses a client's time unless this holds (INVALID_ARGUMENT), rather than clamp it.
    public var isValid: Bool {
        (Self.minimumSeconds...Self.maximumSeconds).contains(seconds) && (0...999_999_999).contains(nanos)
    }

    /// `microseconds` of a valid time (`isValid`), nil for any other.
    public var validMicroseconds: Int64? { isValid ? microseconds : nil }

    /// Microseconds since the epoch, the sub-microsecond part dropped (the inverse of
    /// `init(microseconds:)`). A time outside google.protobuf.Timestamp's range, which a client
    /// may send (any int64 decodes), is clamped to it: the product would overflow Int64 and
    /// trap, and within the range any sum or difference of two times fits.
    public var microseconds: Int64 {
        let seconds = min(max(seconds, Self.minimumSeconds), Self.maximumSeconds)
        let nanos = min(max(nanos, 0), 999_999_999)
        return seconds * 1_000_000 + Int64(nanos / 1000)
    }

    public func encode(to writer: inout ProtoWriter) {
        if seconds != 0 { writer.writeInt64(field: 1, seconds) }
        if nanos != 0 { writer.writeInt32(field: 2, nanos) }
    }

    public mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: seconds = try reader.readInt64()
        case 2: nanos = try reader.readInt32()
        default: try reader.skipField()
        }
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}
