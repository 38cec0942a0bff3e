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

    /// Microseconds since the epoch, the sub-microsecond part dropped (the inverse of
    /// `init(microseconds:)`).
    public var microseconds: Int64 {
        seconds * 1_000_000 + Int64(nanos / 1000)
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
