import Contracts
/// How one free-text field is cleaned and bounded: surrounding whitespace trimmed, control
/// characters refused (new lines only where `multiline`), at most `maximumLength` characters
/// (grapheme clusters, as a person counts them).
struct TextRule: Sendable {
    var field: String
    var maximumLength: Int
    var multiline = false
    var tooLongReason = Identity.ErrorReason.fieldTooLong

    /// The cleaned text; empty input stays empty (it clears the field).
    func clean(_ text: String) throws(InputError) -> String {
        // Bytes first: bounds the work of counting characters in a hostile string.
        guard text.utf8.count <= maximumLength * 16 else { throw tooLong }
        let unified = multiline ? text.replacingCRLF : text
        let trimmed = unified.trimmedOfWhitespace
        for scalar in trimmed.unicodeScalars where Self.isRefused(scalar, multiline: multiline) {
            throw .invalidText(field: field)
        }
        guard trimmed.count <= maximumLength else { throw tooLong }
        return trimmed
    }

    private var tooLong: InputError { .tooLong(field: field, maximum: maximumLength, reason: tooLongReason) }

    /// C0 and C1 controls (a new line excepted in multiline text), and the bidirectional
    /// embeddings, overrides and isolates that can make text read differently than it sorts.
    private static func isRefused(_ scalar: Unicode.Scalar, multiline: Bool) -> Bool {
        if scalar == "\n" { return !multiline }
        if scalar.properties.generalCategory == .control { return true }
        return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}

extension String {
    /// Without leading and trailing white space and new lines.
    var trimmedOfWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }

    /// With Windows (CR LF) and old Mac (CR) line ends as LF.
    fileprivate var replacingCRLF: String {
        guard unicodeScalars.contains("\r") else { return self }
        var scalars = String.UnicodeScalarView()
        var afterCR = false
        for scalar in unicodeScalars {
            defer { afterCR = scalar == "\r" }
            if scalar == "\n" && afterCR { continue }
            scalars.append(scalar == "\r" ? "\n" : scalar)
        }
        return String(scalars)
    }
}
