import Auth
import Contracts
import Foundation
import RPC

/// Which members of an app have the hashed contacts a device sent, asked of identity
/// (`ContactsInternal.MatchContacts`) with discovery's service credential.
struct ContactMatcher: Sendable {
    let client: ContactsInternalClient
    let credential: ServiceCredential?

    /// The matching members' ids; UNAVAILABLE IDENTITY_UNAVAILABLE when identity cannot be asked.
    func members(app: String, hashes: [String]) async throws(DiscoveryError) -> [UUID] {
        guard !hashes.isEmpty else { return [] }
        guard let credential else { throw .identityUnavailable }
        do {
            let response = try await client.matchContacts(.init(app: app, hashes: hashes),
                                                          options: .service(credential, timeout: .seconds(5)))
            return Array(Set(response.matches.compactMap { UUID(uuidString: $0.accountID) }))
        } catch {
            throw .identityUnavailable
        }
    }
}
