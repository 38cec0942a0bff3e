/// The `traceparent` header of W3C Trace Context (Recommendation, section 3.2):
/// `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, lowercase.
///
/// The one place the header is parsed and written: the RPC server and client, the tracer and
/// the gateway client all go through it.
package struct TraceParent: Sendable, Hashable {
    /// The metadata (header) key.
    package static let headerName = "traceparent"

    package var traceID: TraceID
    /// The id of the caller's span, the parent of the receiver's.
    package var spanID: SpanID
    /// Trace flags; bit 0 is `sampled`.
    package var flags: UInt8

    package init(traceID: TraceID, spanID: SpanID, sampled: Bool) {
        self.traceID = traceID
        self.spanID = spanID
        self.flags = sampled ? 0x01 : 0x00
    }

    /// Whether the caller may have recorded its span (flag bit 0).
    package var isSampled: Bool { flags & 0x01 != 0 }

    /// The header value, always version 00.
    package var header: String {
        let flagDigits = String(HexID.hex(UInt64(flags)).suffix(2))
        return "00-" + traceID.hex + "-" + spanID.hex + "-" + flagDigits
    }

    /// Parses a header value; nil for anything the spec calls invalid, so the receiver starts
    /// a new trace: a version other than lowercase hex or `ff`, version 00 with extra
    /// characters, uppercase hex, an all-zero trace or parent id. A later version is read as
    /// version 00 when its first 55 characters have that shape and any rest starts with `-`
    /// (section 3.2.4, "versioning of traceparent").
    package init?(header value: String) {
        self.init(utf8: Substring(value).utf8)
    }

    private init?(utf8 text: Substring.UTF8View) {
        let bytes = Array(text)
        guard bytes.count >= 55,
              let version = HexID.parse(text.prefix(2)), version != 0xFF else { return nil }
        if version == 0 {
            guard bytes.count == 55 else { return nil }
        } else if bytes.count > 55 {
            guard bytes[55] == UInt8(ascii: "-") else { return nil }
        }
        let dash = UInt8(ascii: "-")
        guard bytes[2] == dash, bytes[35] == dash, bytes[52] == dash else { return nil }
        let start = text.startIndex
        func field(_ from: Int, _ length: Int) -> Substring.UTF8View {
            let lower = text.index(start, offsetBy: from)
            return text[lower..<text.index(lower, offsetBy: length)]
        }
        guard let traceID = TraceID(hex: field(3, 32)), !traceID.isZero,
              let spanID = SpanID(hex: field(36, 16)), spanID.value != 0,
              let flags = HexID.parse(field(53, 2)) else { return nil }
        self.traceID = traceID
        self.spanID = spanID
        // Version 00 defines only the sampled bit; the others are passed on as received.
        self.flags = UInt8(flags)
    }
}
