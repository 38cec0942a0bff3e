/// One HTTP/2 frame as a test peer sends or receives it (RFC 9113 §4.1), payload undecoded.
package struct RawHTTP2Frame: Sendable, CustomStringConvertible {
    /// Frame types (RFC 9113 §6).
    package enum Kind {
        package static let data: UInt8 = 0x0
        package static let headers: UInt8 = 0x1
        package static let rstStream: UInt8 = 0x3
        package static let settings: UInt8 = 0x4
        package static let ping: UInt8 = 0x6
        package static let goaway: UInt8 = 0x7
        package static let windowUpdate: UInt8 = 0x8
        package static let continuation: UInt8 = 0x9
    }

    /// Frame flags (RFC 9113 §6).
    package enum Flags {
        package static let endStream: UInt8 = 0x1
        package static let ack: UInt8 = 0x1
        package static let endHeaders: UInt8 = 0x4
    }

    /// SETTINGS identifiers (RFC 9113 §6.5.2).
    package enum Setting {
        package static let maxConcurrentStreams: UInt16 = 0x3
        package static let initialWindowSize: UInt16 = 0x4
        package static let maxFrameSize: UInt16 = 0x5
        package static let maxHeaderListSize: UInt16 = 0x6
    }

    package static let headerSize = 9

    package var type: UInt8
    package var flags: UInt8
    package var streamID: UInt32
    package var payload: [UInt8]

    package init(type: UInt8, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8] = []) {
        self.type = type
        self.flags = flags
        self.streamID = streamID
        self.payload = payload
    }

    package func has(_ flag: UInt8) -> Bool { flags & flag != 0 }

    /// The 9-byte header followed by the payload.
    package var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize + payload.count)
        let length = UInt32(payload.count)
        bytes += [UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
        bytes += [type, flags]
        bytes += bigEndianBytes(streamID & 0x7fff_ffff)
        bytes += payload
        return bytes
    }

    /// Decodes one frame from the front of `bytes`; nil until a whole frame is there.
    package static func decode(from bytes: [UInt8], at offset: Int) -> (frame: RawHTTP2Frame, size: Int)? {
        guard bytes.count - offset >= headerSize else { return nil }
        let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
        guard bytes.count - offset >= headerSize + length else { return nil }
        let streamID = readUInt32(bytes, at: offset + 5) & 0x7fff_ffff
        let payload = Array(bytes[(offset + headerSize)..<(offset + headerSize + length)])
        return (RawHTTP2Frame(type: bytes[offset + 3], flags: bytes[offset + 4], streamID: streamID, payload: payload),
                headerSize + length)
    }

    /// The error code of a RST_STREAM or GOAWAY frame.
    package var errorCode: UInt32? {
        switch type {
        case Kind.rstStream where payload.count >= 4: return Self.readUInt32(payload, at: 0)
        case Kind.goaway where payload.count >= 8: return Self.readUInt32(payload, at: 4)
        default: return nil
        }
    }

    /// The last stream id of a GOAWAY frame.
    package var goawayLastStreamID: UInt32? {
        guard type == Kind.goaway, payload.count >= 8 else { return nil }
        return Self.readUInt32(payload, at: 0) & 0x7fff_ffff
    }

    /// The (identifier, value) pairs of a SETTINGS frame.
    package var settings: [(UInt16, UInt32)] {
        guard type == Kind.settings else { return [] }
        return stride(from: 0, to: payload.count - payload.count % 6, by: 6).map { index in
            (UInt16(payload[index]) << 8 | UInt16(payload[index + 1]), Self.readUInt32(payload, at: index + 2))
        }
    }

    package var description: String {
        let names: [UInt8: String] = [0: "DATA", 1: "HEADERS", 2: "PRIORITY", 3: "RST_STREAM", 4: "SETTINGS",
                                      5: "PUSH_PROMISE", 6: "PING", 7: "GOAWAY", 8: "WINDOW_UPDATE", 9: "CONTINUATION"]
        var text = "\(names[type] ?? "type \(type)")(stream \(streamID), flags \(flags), \(payload.count) bytes"
        if let errorCode { text += ", error \(errorCode)" }
        return text + ")"
    }

    static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}

func bigEndianBytes(_ value: UInt32) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
     UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}
