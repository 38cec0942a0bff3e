#if canImport(Glibc)
import Glibc
#endif

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

extension HTTP2Header {
    /// Whether this field's name and value are exactly these bytes.
    func `is`(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        Self.bytes(of: self.name, equal: name) && Self.bytes(of: self.value, equal: value)
    }

    private static func bytes(of string: String, equal bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // A native or small string counts its UTF-8 at once and lends its bytes without a copy.
        guard string.utf8.count == bytes.count else { return false }
        return string.utf8.withContiguousStorageIfAvailable { own in
            // Safe: both buffers hold `bytes.count` bytes; an empty one may have no address.
            bytes.isEmpty || memcmp(own.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        } ?? string.utf8.elementsEqual(bytes)
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
