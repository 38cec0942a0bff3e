/// One HTTP/2 header field. Names are lowercase on the wire (RFC 9113 §8.2.1).
package struct HTTP2Header: Sendable, Equatable {
    package var name: String
    package var value: String
    /// Whether HPACK may add the field to the connection's dynamic table (RFC 7541 §6.2.1).
    /// Fields whose value differs on every message (request ids, timeouts, error texts) are
    /// sent literally instead: indexed, each one evicts an entry worth keeping, and nghttp2's
    /// encoder hashes entries by name, so it walked a chain of every stored `x-request-id` on
    /// each response (5% of a server's CPU on authenticated reads).
    package var isIndexed: Bool

    package init(_ name: String, _ value: String, indexed: Bool = true) {
        self.name = name
        self.value = value
        self.isIndexed = indexed
    }
}

extension Array where Element == HTTP2Header {
    /// The first value for `name`, if any.
    package subscript(first name: String) -> String? {
        // Lengths first: a native string knows its own, and most names differ in it, where `==`
        // on two different short names takes the standard library's slow comparison.
        let length = name.utf8.count
        for header in self where header.name.utf8.count == length && header.name == name { return header.value }
        return nil
    }
}
