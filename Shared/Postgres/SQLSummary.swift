/// A statement's low-cardinality summary for its span (OpenTelemetry's `db.query.summary`):
/// the operation and the table it works on, e.g. `SELECT identity.accounts`. Built from
/// keywords and identifiers only; literals, numbers and `$n` parameters never appear.
enum SQLSummary {
    /// `OPERATION table`, or the operation alone (`BEGIN`, `COMMIT`, `LISTEN`…).
    static func of(_ sql: String) -> String {
        let words = topLevelWords(sql)
        guard var operation = words.first?.uppercased() else { return "SQL" }
        var index = 1
        if operation == "WITH" {
            // The main statement follows the parenthesised common table expressions.
            guard let main = words.firstIndex(where: { ["SELECT", "INSERT", "UPDATE", "DELETE"].contains($0.uppercased()) })
            else { return operation }
            operation = words[main].uppercased()
            index = main + 1
        }
        let rest = words[index...]
        let target: String?
        switch operation {
        case "SELECT", "DELETE":
            target = word(after: "FROM", in: rest)
        case "INSERT":
            target = word(after: "INTO", in: rest)
        case "UPDATE":
            target = rest.first.flatMap { $0.uppercased() == "ONLY" ? rest.dropFirst().first : $0 }
        default:
            target = nil
        }
        return target.map { operation + " " + $0 } ?? operation
    }

    private static func word(after keyword: String, in words: ArraySlice<String>) -> String? {
        guard let found = words.firstIndex(where: { $0.uppercased() == keyword }), found + 1 < words.endIndex else {
            return nil
        }
        return words[found + 1]
    }

    /// Keywords and (dotted) identifiers outside parentheses, comments and literals, from the
    /// statement's first 4 KiB.
    static func topLevelWords(_ sql: String) -> [String] {
        let bytes = Array(sql.utf8.prefix(4096))
        var words: [String] = []
        var depth = 0
        var index = 0
        func isWordStart(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
        }
        func isWordByte(_ byte: UInt8) -> Bool {
            isWordStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "$")
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "("):
                depth += 1
                index += 1
            case UInt8(ascii: ")"):
                depth = max(0, depth - 1)
                index += 1
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count && bytes[index] != 0x0A { index += 1 }
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    index += 1
                }
                index += 2
            case UInt8(ascii: "'"):
                // A literal (never in our statements, which bind values): skipped, '' included.
                index += 1
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "'") {
                        if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "'") { index += 2; continue }
                        break
                    }
                    index += 1
                }
                index += 1
            case _ where isWordStart(byte) || byte == UInt8(ascii: "\""):
                var word: [UInt8] = []
                // An identifier, possibly qualified (`schema.table`, `"Quoted".table`).
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "\"") {
                        index += 1
                        while index < bytes.count && bytes[index] != UInt8(ascii: "\"") {
                            word.append(bytes[index])
                            index += 1
                        }
                        index += 1
                    } else if isWordStart(bytes[index]) {
                        while index < bytes.count && isWordByte(bytes[index]) {
                            word.append(bytes[index])
                            index += 1
                        }
                    } else {
                        break
                    }
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "."),
                          index + 1 < bytes.count, isWordStart(bytes[index + 1]) || bytes[index + 1] == UInt8(ascii: "\"")
                    else { break }
                    word.append(UInt8(ascii: "."))
                    index += 1
                }
                if depth == 0 && !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
            default:
                index += 1
            }
        }
        return words
    }
}

extension ConnectionDriver.Request {
    /// The span name of this round trip: its statement's summary, or its statements' distinct
    /// summaries in order (`BEGIN; INSERT messaging.messages`).
    var summary: String {
        switch self {
        case .query(let sql, _), .script(let sql):
            return SQLSummary.of(sql)
        case .pipeline(let statements):
            var summaries: [String] = []
            for statement in statements {
                let summary = SQLSummary.of(statement.sql)
                if summaries.last != summary { summaries.append(summary) }
            }
            return summaries.joined(separator: "; ")
        }
    }
}
