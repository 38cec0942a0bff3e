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
}
