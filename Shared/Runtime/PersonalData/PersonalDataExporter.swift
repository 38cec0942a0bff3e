package import Auth
package import Contracts
import Foundation
package import Postgres
package import RPC

/// A service's `ExportMyData` (rendezvous/privacy/v1/privacy.proto): the caller's rows of
/// every section, read in one read-only snapshot of the service's schema.
package struct PersonalDataExporter: Sendable {
    /// The service that answers, also its schema: "identity", "discovery", ...
    package let service: String
    /// Every kind of record the service keeps about members, in the export's order.
    package let sections: [PersonalDataSection]
    package let pool: PostgresPool

    package init(service: String, sections: [PersonalDataSection], pool: PostgresPool) {
        self.service = service
        self.sections = sections
        self.pool = pool
    }

    /// The caller's export; PERMISSION_DENIED NOT_OWN_DATA when the request names another account.
    package func export(_ request: Privacy.ExportMyDataRequest,
                        context: ServerCallContext) async throws -> Privacy.PersonalDataExport {
        let caller = try context.requireAccount()
        guard let member = UUID(uuidString: caller.accountID) else { throw AuthFailure(.malformedToken).rpcError }
        guard request.accountID.isEmpty || UUID(uuidString: request.accountID) == member else {
            throw RPCError(Platform.ErrorReason.notOwnData, message: "you can only export your own data")
        }
        var export = Privacy.PersonalDataExport()
        export.accountID = member.uuidString.lowercased()
        export.app = caller.app
        export.service = service
        export.exportedAt = Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        export.sections = try await pool.withTransaction(isolation: .repeatableRead) { connection in
            _ = try await connection.query("SET TRANSACTION READ ONLY")
            var sections: [Privacy.PersonalDataSection] = []
            for section in self.sections {
                let rows = try await connection.query(section.query(schema: service), [.uuid(member)])
                sections.append(Privacy.PersonalDataSection(name: section.table, description: section.description,
                                                            records: try rows.map { try $0.decode(0) }))
            }
            return sections
        }
        return export
    }

    /// The tables the sections' queries would read whole, one `table (section)` each: a
    /// sequential scan, or an index scan without a condition on the index's first column (every
    /// entry read, then filtered), in their plans with sequential scans priced out
    /// (`enable_seqscan = off`), so a table is listed only when no index can find a member's
    /// rows. Merge and hash joins are priced out too: on the tests' small tables the planner may
    /// otherwise join a section's subquery by reading the other side whole through an index in
    /// its order though an index would find the member's rows, and the answer would follow the
    /// tables' statistics. Any member may ask for an export at any time; on a table that grows
    /// with every member (messages, pushes, events) a whole-table read per export would cost more
    /// the more members there are.
    package func sectionsReadWhole() async throws -> [String] {
        try await pool.withTransaction { connection in
            for setting in ["enable_seqscan", "enable_mergejoin", "enable_hashjoin"] {
                _ = try await connection.query("SET LOCAL \(setting) = off")
            }
            var leading: [String: String] = [:]
            for row in try await connection.query("""
                SELECT c.relname, coalesce(a.attname, '') FROM pg_index i
                JOIN pg_class c ON c.oid = i.indexrelid
                LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                WHERE c.relnamespace = $1::regnamespace
                """, [.text(service)]) {
                leading[try row.decode(0)] = try row.decode(1)
            }
            var whole: [String] = []
            for section in sections {
                let rows = try await connection.query("EXPLAIN (FORMAT JSON) " + section.query(schema: service), [.uuid(UUID())])
                let text: String = try rows[0].decode(0)  // Safe: EXPLAIN (FORMAT JSON) returns one row.
                let plans = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] ?? []
                for plan in plans.compactMap({ $0["Plan"] as? [String: Any] }) {
                    for table in Self.tablesReadWhole(plan, leading: leading) {
                        whole.append("\(table) (\(section.table))")
                    }
                }
            }
            return whole
        }
    }

    /// The relations `plan` and the plans under it read whole; `leading` maps an index to its
    /// first column ("" for an expression).
    private static func tablesReadWhole(_ plan: [String: Any], leading: [String: String]) -> [String] {
        var tables: [String] = []
        let relation = plan["Relation Name"] as? String
        let index = plan["Index Name"] as? String ?? ""
        switch plan["Node Type"] as? String {
        case "Seq Scan":
            tables.append(relation ?? "?")
        case "Index Scan", "Index Only Scan", "Bitmap Index Scan":
            let condition = plan["Index Cond"] as? String ?? ""
            let first = leading[index] ?? ""
            if condition.isEmpty || (!first.isEmpty && !condition.contains("(\(first) ")) {
                tables.append("\(relation ?? index) by \(index)")
            }
        default: break
        }
        for child in plan["Plans"] as? [[String: Any]] ?? [] { tables += tablesReadWhole(child, leading: leading) }
        return tables
    }
}
