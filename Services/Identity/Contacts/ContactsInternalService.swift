import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.identity.v1.ContactsInternal`: which members of an app have the hashed emails
/// and phones a device sent (contacts.proto), for the services in `callers` only.
struct ContactsInternalService: ContactsInternalProvider {
    static let callersVariable = "RV_IDENTITY_CONTACT_CALLERS"
    let pool: PostgresPool

    /// Every method of the service, each open to `callers` only.
    static func internalMethods(callers: Set<String>) -> [String: ServiceAccess] {
        ["/\(ContactsInternalClient.serviceName)/MatchContacts": .only(callers)]
    }

    func matchContacts(_ request: Contacts.MatchContactsRequest, context: ServerCallContext) async throws
        -> Contacts.MatchContactsResponse {
        _ = try context.requireService()
        guard request.hashes.count <= ContactHashes.maximumPerCall else {
            throw RPCError(Identity.ErrorReason.tooManyValues, message: "at most \(ContactHashes.maximumPerCall) hashes per call",
                           details: ["maximum": String(ContactHashes.maximumPerCall)])
        }
        let hashes = Array(Set(request.hashes.filter(ContactHashes.isWellFormed)))
        guard !hashes.isEmpty else { return Contacts.MatchContactsResponse() }
        let rows = try await pool.withConnection { connection in
            try await connection.query("""
                SELECT contact_hash, account_id FROM identity.email_credentials WHERE app = $1 AND contact_hash = ANY ($2)
                UNION
                SELECT contact_hash, account_id FROM identity.phone_credentials WHERE app = $1 AND contact_hash = ANY ($2)
                UNION
                SELECT contact_hash, account_id FROM identity.provider_credentials WHERE app = $1 AND contact_hash = ANY ($2)
                """, [.text(request.app), .textArray(hashes)])
        }
        return Contacts.MatchContactsResponse(matches: try rows.map { row in
            Contacts.ContactMatch(hash: try row.decode(0), accountID: try row.decode(1, as: UUID.self).uuidString.lowercased())
        })
    }
}
