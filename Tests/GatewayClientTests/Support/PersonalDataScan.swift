import Foundation
import Postgres
import TestSupport

/// Every row of the five services' schemas that still holds a trace of a member: each base table
/// (found in information_schema, so a table added later is scanned too) is read whole as row
/// text, which shows every column (uuid, text, arrays, jsonb, numbers, and bytea as hex), and a
/// row matches when its text holds a trace, or a bytea cell holds the trace's bytes (the UTF-8
/// of a text, the 16 bytes of an id).
struct PersonalDataScan {
    static let schemas = ["identity", "discovery", "messaging", "production", "media"]

    /// Something that identifies the member: an account id, the email, or a text she wrote.
    struct Trace: Sendable, Hashable, CustomStringConvertible {
        enum Kind: String, Sendable { case accountID = "account id", email, text }

        var kind: Kind
        var value: String

        /// What the row text may show of it, lower-cased: the value, its bytes as bytea hex, and
        /// for an id its 16 bytes.
        var needles: [String] {
            let value = value.lowercased()
            var needles = [value, value.utf8.map { String(format: "%02x", $0) }.joined()]
            if kind == .accountID { needles.append(value.replacingOccurrences(of: "-", with: "")) }
            return needles
        }

        var description: String { "\(kind.rawValue) \(value)" }
    }

    /// One row that holds `traces`.
    struct Finding: Sendable, CustomStringConvertible {
        var table: String
        var traces: Set<Trace>
        var row: String

        var description: String { "\(table) holds \(traces.map(\.description).sorted()): \(row.prefix(300))" }
    }

    /// The tables scanned, `schema.table`.
    let tables: [String]
    /// The rows that hold a trace, by table.
    let findings: [Finding]

    /// Scans every base table of `schemas` for `traces` (at most 20 rows reported per table).
    static func run(for traces: [Trace], on pool: PostgresPool) async throws -> PersonalDataScan {
        let needles = traces.flatMap { trace in trace.needles.map { (trace, $0) } }
        return try await pool.withConnection { connection in
            let tables: [String] = try await connection.query("""
                SELECT table_schema || '.' || table_name FROM information_schema.tables
                WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' ORDER BY 1
                """, [.textArray(schemas)]).map { try $0.decode(0) }
            var findings: [Finding] = []
            for table in tables {
                // Names from information_schema, quoted as identifiers; the traces are bound. The
                // row's text is made once (OFFSET 0 keeps the planner from inlining it per needle).
                let name = table.split(separator: ".").map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" }
                    .joined(separator: ".")
                let rows = try await connection.query("""
                    SELECT t::text FROM \(name) t CROSS JOIN LATERAL (SELECT lower(t::text) AS lowered OFFSET 0) r
                    WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) n WHERE strpos(r.lowered, n) > 0) LIMIT 20
                    """, [.textArray(needles.map(\.1))])
                for row in rows {
                    let text: String = try row.decode(0)
                    let lowered = text.lowercased()
                    let matched = Set(needles.filter { lowered.contains($0.1) }.map(\.0))
                    findings.append(Finding(table: table, traces: matched, row: text))
                }
            }
            return PersonalDataScan(tables: tables, findings: findings)
        }
    }
}
