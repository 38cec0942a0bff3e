/// One HTTP/2 header field. Names are lowercase on the wire (RFC 9113 §8.2.1).
package struct HTTP2Header: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == HTTP2Header {
    /// The first value for `name`, if any.
    package subscript(first name: String) -> String? {
        for header in self where header.name == name { return header.value }
        return nil
    }
}
