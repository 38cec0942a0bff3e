import Wire

/// `enum Color` in wire_test.proto: an open enum kept as its number.
struct Color: ProtoEnum {
    var rawValue: Int32

    init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    static let unspecified = Color(rawValue: 0)
    static let red = Color(rawValue: 1)
    static let green = Color(rawValue: 2)
}
