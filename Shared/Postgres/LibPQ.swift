internal import CLibPQ
internal import Glibc
import IOLoop

/// Stateless helpers over libpq: connecting, binding parameters, copying results and errors.
enum LibPQ {
    /// Opens a blocking connection; throws `.connectionFailed` with libpq's message.
    static func open(_ configuration: PostgresConfiguration) throws(PostgresError) -> OpaquePointer {
        var parameters = configuration.connectionParameters
        // libpq would ask the resolver on every connect, with no bound on a stalled lookup
        // (`connect_timeout` starts after it): the process' resolver answers instead, falling
        // back to the last address when DNS is slow. `host` stays for TLS and .pgpass.
        let host = configuration.host
        if !host.hasPrefix("/"), !host.contains(","), HostResolver.needsLookup(host) {
            do {
                parameters.append(("hostaddr", try HostResolver.shared.dottedAddress(of: host)))
            } catch {
                throw PostgresError(code: .connectionFailed, context: "\(error)")
            }
        }
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keywordList = keywords.map { UnsafePointer($0) } + [nil]
        let valueList = values.map { UnsafePointer($0) } + [nil]
        guard let connection = PQconnectdbParams(keywordList, valueList, 0) else {
            throw PostgresError(code: .connectionFailed, context: "out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(code: .connectionFailed, messagePrimary: message)
        }
        // libpq prints notices to stderr by default; NOTICEs are not errors, drop them.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        return connection
    }

    /// SQLSTATEs after which the server has closed (or is closing) the session.
    static func endsSession(_ state: SQLState?) -> Bool {
        guard let state else { return false }
        return state == .adminShutdown || state == .crashShutdown || state == .cannotConnectNow
            || state.errorClass == "08"
    }

    /// Lays out parameters for `PQexecPrepared`: one buffer, pointers into it, lengths and
    /// formats (1 = binary, 0 = text, which libpq reads as a NUL-terminated string). Every
    /// statement passes here: only the buffer is on the heap, sized once; the rest is on the stack.
    static func withParameters<R>(
        _ params: [PostgresValue],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        let count = params.count
        // Never empty: a zero-length non-NULL value still needs a non-nil pointer.
        var storage: [UInt8] = []
        storage.reserveCapacity(params.reduce(1) { $0 + ($1.bytes?.count ?? 0) + ($1.isText ? 1 : 0) })
        storage.append(0)
        // Per parameter: its offset in `storage` (-1: NULL); then its length, then its format.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { offsets in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * count) { numbers in
                for (index, param) in params.enumerated() {
                    if let bytes = param.bytes {
                        offsets[index] = storage.count
                        storage.append(contentsOf: bytes)
                        if param.isText { storage.append(0) }
                        numbers[index] = Int32(clamping: bytes.count)
                    } else {
                        offsets[index] = -1
                        numbers[index] = 0
                    }
                    numbers[count + index] = param.isText ? 0 : 1
                }
                return storage.withUnsafeBufferPointer { buffer in
                    // Non-nil: storage has at least one byte; offsets are within it.
                    let base = UnsafeRawPointer(buffer.baseAddress!)
                    return withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: count) { values in
                        for index in 0..<count {
                            values[index] = offsets[index] < 0 ? nil : (base + offsets[index]).assumingMemoryBound(to: CChar.self)
                        }
                        return body(UnsafePointer(values.baseAddress), UnsafePointer(numbers.baseAddress),
                                    numbers.baseAddress.map { UnsafePointer($0 + count) })
                    }
                }
            }
        }
    }

    /// Copies a tuples result into Swift memory so the `PGresult` can be cleared at once.
    static func rows(from result: OpaquePointer) -> PostgresRows {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { column in
            PostgresRows.Column(name: String(cString: PQfname(result, Int32(column))),
                                type: PostgresType(oid: PQftype(result, Int32(column))))
        }
        var storage: [UInt8] = []
        var cells: [PostgresRows.Cell] = []
        cells.reserveCapacity(rowCount * columnCount)
        for row in 0..<Int32(rowCount) {
            for column in 0..<Int32(columnCount) {
                if PQgetisnull(result, row, column) != 0 {
                    cells.append(.init(offset: storage.count, length: -1))
                    continue
                }
                let length = Int(PQgetlength(result, row, column))
                cells.append(.init(offset: storage.count, length: length))
                // PQgetvalue points at `length` bytes owned by `result`, alive until PQclear.
                let value = UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: length)
                storage.append(contentsOf: value)
            }
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? rowCount
        return PostgresRows(columns: columns, affectedRows: affected, storage: storage, cells: cells,
                            rowCount: rowCount)
    }

    /// The server's diagnostic fields of a failed result.
    static func error(from result: OpaquePointer) -> PostgresError {
        func field(_ code: Int32) -> String? {
            PQresultErrorField(result, code).map { String(cString: $0) }
        }
        let state = field(clibpq_diag_sqlstate()).map(SQLState.init(rawValue:))
        var error = PostgresError(code: state.map { .sqlState($0) } ?? .protocolViolation,
                                  messagePrimary: field(clibpq_diag_message_primary())
                                      ?? String(cString: PQresultErrorMessage(result)))
        error.detail = field(clibpq_diag_message_detail())
        error.hint = field(clibpq_diag_message_hint())
        error.constraintName = field(clibpq_diag_constraint_name())
        error.schemaName = field(clibpq_diag_schema_name())
        error.tableName = field(clibpq_diag_table_name())
        error.columnName = field(clibpq_diag_column_name())
        return error
    }
}
