/// The messages make_golden.py encodes with Python protobuf, built in Swift.
enum GoldenCases {
    static let all: [(name: String, message: TestMessage, golden: [UInt8])] = [
        ("empty", TestMessage(), PythonGolden.empty),
        ("scalars", scalars, PythonGolden.scalars),
        ("extremes", extremes, PythonGolden.extremes),
        ("collections", collections, PythonGolden.collections),
        ("nested", nested, PythonGolden.nested),
    ]

    static var scalars: TestMessage {
        var m = TestMessage()
        m.int32Value = 150
        m.int64Value = -2
        m.uint32Value = 300
        m.uint64Value = 1 << 40
        m.sint32Value = -3
        m.sint64Value = 64
        m.boolValue = true
        m.color = .green
        m.fixed32Value = 0xDEAD_BEEF
        m.fixed64Value = 0x0123_4567_89AB_CDEF
        m.sfixed32Value = -5
        m.sfixed64Value = -6
        m.floatValue = 1.5
        m.doubleValue = -2.25
        m.stringValue = "testing"
        m.bytesValue = [0, 1, 0xFF]
        return m
    }

    static var extremes: TestMessage {
        var m = TestMessage()
        m.int32Value = .min
        m.int64Value = .min
        m.uint32Value = .max
        m.uint64Value = .max
        m.sint32Value = .min
        m.sint64Value = .min
        m.color = Color(rawValue: 99)
        m.fixed32Value = .max
        m.fixed64Value = .max
        m.sfixed32Value = .min
        m.sfixed64Value = .min
        m.floatValue = -.infinity
        m.doubleValue = -0.0
        m.stringValue = "h\u{E9}llo \u{1F30D}"
        return m
    }

    static var collections: TestMessage {
        var m = TestMessage()
        m.inner = Inner(id: 7, name: "inner", values: [1, -1])
        m.repeatedInt32 = [3, 270, 86942, -1]
        m.repeatedString = ["a", "", "c"]
        m.repeatedInner = [Inner(id: 1), Inner(name: "two", values: [2])]
        m.labels = ["b": "2", "a": "1"]
        m.counts = ["x": -1, "y": 0]
        m.choice = .name("picked")
        m.colors = [.red, .green, Color(rawValue: 7)]
        m.repeatedDouble = [0.5, .infinity]
        m.repeatedSInt64 = [-1, 1, .min]
        return m
    }

    static var nested: TestMessage {
        var m = TestMessage()
        m.choice = .inner(Inner(id: 42))
        var level3 = TestMessage()
        level3.int32Value = 3
        var level2 = TestMessage()
        level2.recursive = level3
        var level1 = TestMessage()
        level1.recursive = level2
        level1.stringValue = String(repeating: "x", count: 300)
        m.recursive = level1
        m.repeatedInt32 = Array(0..<200)
        return m
    }
}
