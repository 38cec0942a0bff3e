/// One kind of record a service keeps about members, as its personal-data export shows it:
/// the rows of one of the service's tables that are the member's, each as a JSON object.
package struct PersonalDataSection: Sendable {
    /// The table, unqualified; also the section's name in the export.
    package var table: String
    /// What the section holds and which rows are the member's (`PersonalDataSection.description`
    /// of rendezvous.privacy.v1).
    package var description: String
    /// The SQL condition that selects the member's rows of `t` (the table's alias); `$1` is the
    /// member's account id (uuid).
    package var condition: String
    /// Columns left out of each record: secrets that would let someone act as the member, and
    /// what the member could not see through the apps.
    package var omitting: [String]
    /// Columns shown as an SQL expression over `t` instead of as stored (e.g. a geography as
    /// WKT text).
    package var rendering: [String: String]
    /// The SQL order of the records, oldest first where they have a time.
    package var order: String

    package init(_ table: String, _ description: String, where condition: String, omitting: [String] = [],
                 rendering: [String: String] = [:], order: String = "created_at") {
        self.table = table
        self.description = description
        self.condition = condition
        self.omitting = omitting
        self.rendering = rendering
        self.order = order
    }

    /// The query of the section in `schema`: one text column, each row a record. The names and
    /// the condition are the service's own constants, never input; the member's id is bound ($1).
    package func query(schema: String) -> String {
        var record = "to_jsonb(t)"
        if !omitting.isEmpty {
            record = "(\(record) - ARRAY[\(omitting.map { "'\($0)'" }.joined(separator: ", "))]::text[])"
        }
        for (column, expression) in rendering.sorted(by: { $0.key < $1.key }) {
            record = "jsonb_set(\(record), '{\(column)}', coalesce(to_jsonb(\(expression)), 'null'::jsonb))"
        }
        return "SELECT \(record)::text FROM \(schema).\(table) t WHERE \(condition) ORDER BY \(order)"
    }
}
