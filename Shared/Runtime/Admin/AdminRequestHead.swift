/// The request line of an HTTP/1.1 request (RFC 9112 §3), parsed from the bytes received so far.
/// The query and header fields are kept for a service's own routes (signed downloads).
package struct AdminRequestHead: Equatable, Sendable {
    /// The request method, e.g. `GET`.
    package var method: String
    /// The path without its query.
    package var path: String
    /// The query without its `?`.
    package var query: String
    /// Header fields by lowercase name (the first of repeated ones).
    package var headers: [String: String]

    /// A parsed head; tests build these directly.
    package init(method: String, path: String, query: String = "", headers: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// Most bytes the request line and headers may take.
    package static let maxHeadBytes = 8 * 1024

    /// What the bytes received so far amount to.
    package enum ParseResult: Equatable, Sendable {
        /// More bytes are needed.
        case incomplete
        case complete(AdminRequestHead)
        /// The head passed `maxHeadBytes`: answer 431.
        case tooLarge
        /// Not an HTTP/1.x request line: answer 400.
        case malformed
    }

    /// Parses `bytes` once they hold the whole head (up to the empty line).
    package static func parse(_ bytes: [UInt8]) -> ParseResult {
        // RFC 9112 §2.2: ignore empty lines before the request line.
        var start = 0
        while start < bytes.count, bytes[start] == 0x0D || bytes[start] == 0x0A { start += 1 }
        guard let end = endOfHead(bytes, from: start) else {
            return bytes.count >= maxHeadBytes ? .tooLarge : .incomplete
        }
        guard end <= maxHeadBytes else { return .tooLarge }
        var lineEnd = start
        while bytes[lineEnd] != 0x0A { lineEnd += 1 }
        var line = bytes[start..<lineEnd]
        if line.last == 0x0D { line = line.dropLast() }
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3,
              !parts[0].isEmpty, parts[0].allSatisfy(isTokenCharacter),
              parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
              parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8)
        else { return .malformed }
        let target = parts[1].split(separator: UInt8(ascii: "?"), maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [String: String] = [:]
        for field in bytes[(lineEnd + 1)..<end].split(separator: 0x0A) {
            let text = String(decoding: field.last == 0x0D ? field.dropLast() : field, as: UTF8.self)
            guard let colon = text.firstIndex(of: ":") else { continue }
            let name = text[..<colon].lowercased()
            var value = text[text.index(after: colon)...]
            while value.first == " " || value.first == "\t" { value.removeFirst() }
            while value.last == " " || value.last == "\t" { value.removeLast() }
            if headers[name] == nil { headers[name] = String(value) }
        }
        return .complete(AdminRequestHead(method: String(decoding: parts[0], as: UTF8.self),
                                          path: String(decoding: target[0], as: UTF8.self),
                                          query: target.count > 1 ? String(decoding: target[1], as: UTF8.self) : "",
                                          headers: headers))
    }

    /// The index just past the blank line that ends the head (CRLF CRLF, or bare LF LF).
    private static func endOfHead(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// RFC 9110 §5.6.2 tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
