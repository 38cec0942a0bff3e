/// One byte range of a `Range` header (RFC 9110 §14.1.2), resolved against a length: `a-b`,
/// `a-` or the suffix `-n`. Several ranges are not served (the whole file is answered instead,
/// which §14.2 allows).
enum ByteRange {
    enum Resolution: Equatable {
        /// No usable Range header: the whole representation.
        case whole
        case partial(Range<Int64>)
        /// 416 Range Not Satisfiable.
        case unsatisfiable
    }

    static func resolve(_ header: String?, length: Int64) -> Resolution {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst("bytes=".count)
        guard !spec.contains(",") else { return .whole }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0].trimmingSpaces, last = parts[1].trimmingSpaces
        if first.isEmpty {
            guard let count = Int64(last), count >= 0 else { return .whole }
            guard count > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - count)..<length)
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        guard start < length else { return .unsatisfiable }
        if last.isEmpty { return .partial(start..<length) }
        guard let end = Int64(last), end >= start else { return .whole }
        // An end past the representation (up to Int64.max) means its last byte.
        return .partial(start..<(end < length ? end + 1 : length))
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
