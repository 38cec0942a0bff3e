/// A protobuf enum as a struct over its number, so unknown values survive a round trip.
///
/// Messages may store an enum field either as a plain `Int32` or as a type conforming to
/// this protocol, typically a struct with `static let` cases:
///
/// ```swift
/// struct Color: ProtoEnum {
///     var rawValue: Int32
///     init(rawValue: Int32) { self.rawValue = rawValue }
///     static let unspecified = Color(rawValue: 0)
///     static let red = Color(rawValue: 1)
/// }
/// ```
///
/// Either way a number the message does not know (from a newer peer) is kept, as proto3
/// requires for open enums.
public protocol ProtoEnum: RawRepresentable, Hashable, Sendable where RawValue == Int32 {
    /// Wraps any enum number, known or not.
    init(rawValue: Int32)
}
