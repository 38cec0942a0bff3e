/// The wire type in the low three bits of a protobuf tag (protobuf encoding spec, "Message Structure").
public enum WireType: UInt8, Sendable {
    /// int32, int64, uint32, uint64, sint32, sint64, bool, enum.
    case varint = 0
    /// fixed64, sfixed64, double.
    case fixed64 = 1
    /// string, bytes, embedded messages, packed repeated fields.
    case lengthDelimited = 2
    /// Start of a (deprecated) group; only ever skipped.
    case startGroup = 3
    /// End of a (deprecated) group; only ever skipped.
    case endGroup = 4
    /// fixed32, sfixed32, float.
    case fixed32 = 5
}
