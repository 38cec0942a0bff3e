import Auth
import Contracts
import Foundation

/// Checks and conversions of request fields shared by Membership's handlers.
enum MembershipInput {
    /// An account id from a request; INVALID_ARGUMENT `INVALID_ACCOUNT_ID` unless a UUID.
    static func accountID(_ text: String) throws(MembershipError) -> UUID {
        guard let id = UUID(uuidString: text) else { throw .invalidAccountID }
        return id
    }

    /// An optional expiry: nil when unset; INVALID_ARGUMENT `INVALID_EXPIRY` unless after `now`
    /// and a valid google.protobuf.Timestamp (`Timestamp.isValid`).
    static func futureDate(_ timestamp: Timestamp?, now: Date = Date()) throws(MembershipError) -> Date? {
        guard let timestamp else { return nil }
        guard timestamp.isValid else { throw .invalidExpiry }
        let date = Date(timeIntervalSince1970: Double(timestamp.seconds) + Double(timestamp.nanos) / 1e9)
        guard date > now else { throw .invalidExpiry }
        return date
    }
}
