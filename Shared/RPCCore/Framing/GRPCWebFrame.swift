/// One frame of a gRPC-Web response body (doc/PROTOCOL-WEB.md): a message, or the trailers that
/// end the response, sent as a frame whose flag byte has the MSB (0x80) set and whose payload is
/// HTTP/1 header lines (`grpc-status:0\r\n`).
package enum GRPCWebFrame: Sendable, Equatable {
    case message([UInt8])
    /// Header fields, names lowercased, values trimmed.
    case trailers([GRPCWebField])

    /// A request or response message: flag 0 (uncompressed), 4-byte big-endian length, bytes.
    package static func encodeMessage(_ payload: [UInt8]) -> [UInt8] {
        header(flag: 0, length: payload.count) + payload
    }

    /// A trailers frame holding `fields` as `name:value\r\n` lines.
    package static func encodeTrailers(_ fields: [GRPCWebField]) -> [UInt8] {
        let block = Array(fields.map { "\($0.name):\($0.value)\r\n" }.joined().utf8)
        return header(flag: 0x80, length: block.count) + block
    }

    private static func header(flag: UInt8, length: Int) -> [UInt8] {
        // Frames are at most the receiver's limit, far below 4 GiB.
        let size = UInt32(truncatingIfNeeded: length)
        return [flag, UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
    }

    /// The fields of a trailers block; lines without a colon are skipped, as are empty names.
    package static func parseTrailers(_ block: [UInt8]) -> [GRPCWebField] {
        let text = String(decoding: block, as: UTF8.self)
        return text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }).compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingSpaces.lowercased()
            guard !name.isEmpty else { return nil }
            return GRPCWebField(name: name, value: line[line.index(after: colon)...].trimmingSpaces)
        }
    }
}

/// A header field of a gRPC-Web trailers frame.
package struct GRPCWebField: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
