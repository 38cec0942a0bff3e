/// The rows of one result, copied out of libpq's `PGresult` (which is freed at once).
/// All cells share one byte buffer; each row is a lightweight view into it.
package struct PostgresRows: Sendable, RandomAccessCollection {
    /// A result column: its name and type.
    package struct Column: Sendable, Hashable {
        package var name: String
        package var type: PostgresType
    }

    struct Cell: Sendable {
        var offset: Int
        /// -1 for NULL.
        var length: Int
    }

    package let columns: [Column]
    /// Rows the statement inserted, updated, deleted, selected… (from the command tag).
    package let affectedRows: Int
    let storage: [UInt8]
    let cells: [Cell]
    private let rowCount: Int

    init(columns: [Column], affectedRows: Int, storage: [UInt8], cells: [Cell], rowCount: Int) {
        self.columns = columns
        self.affectedRows = affectedRows
        self.storage = storage
        self.cells = cells
        self.rowCount = rowCount
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { rowCount }

    package subscript(position: Int) -> PostgresRow {
        PostgresRow(rows: self, index: position)
    }
}

/// One row of a result; decode its cells by column index or name.
package struct PostgresRow: Sendable {
    let rows: PostgresRows
    let index: Int

    /// Decodes column `column` (0-based) as `T`; use an Optional type for nullable columns.
    /// A row past the result's end (`rows[0]` of an empty result) throws rather than traps: a
    /// row a caller expected may be gone by the time it reads, and that must fail the call, not
    /// end the process.
    package func decode<T: PostgresDecodable>(_ column: Int, as type: T.Type = T.self) throws(PostgresError) -> T {
        guard rows.indices.contains(index) else {
            throw PostgresError(code: .decodingFailed, context: "no row \(index): the result has \(rows.count)")
        }
        guard rows.columns.indices.contains(column) else {
            throw PostgresError(code: .decodingFailed, context: "no column \(column)")
        }
        let cell = rows.cells[index * rows.columns.count + column]
        let columnType = rows.columns[column].type
        if cell.length < 0 {
            guard let null = T.decodedNull else {
                throw PostgresError(code: .decodingFailed, context: "column \(column) is NULL, \(T.self) is not Optional")
            }
            return null
        }
        let bytes = rows.storage[cell.offset..<cell.offset + cell.length]
        guard let value = T.decode(bytes, type: columnType) else {
            throw PostgresError(code: .decodingFailed, context: "column \(column) (\(columnType)) as \(T.self)")
        }
        return value
    }

    /// Decodes the first column named `name`.
    package func decode<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws(PostgresError) -> T {
        guard let column = rows.columns.firstIndex(where: { $0.name == name }) else {
            throw PostgresError(code: .decodingFailed, context: "no column named \(name)")
        }
        return try decode(column, as: type)
    }
}
