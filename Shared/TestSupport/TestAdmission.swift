import Postgres

/// Admits accounts of an invite-only app (ÉLITE) for suites whose subject is not admission: the
/// account's row becomes what the committee's ApproveMember leaves (membership status active),
/// written directly so a suite needs no admin per member. Call it right after sign-up, before
/// the profile is written (so ProfileUpdated says admitted), then refresh the session: the
/// token issued at sign-up still says not admitted. Admission itself is tested through
/// ApproveMember and RedeemReferralCode (EndToEndAdmissionTests).
package enum TestAdmission {
    /// Makes the waitlisted account `accountID` active; an account in any other status is left.
    package static func admit(_ accountID: String) async throws {
        let admin = try await TestDatabase.makeAdminPool(poolSize: 1)
        defer { admin.close() }
        _ = try await admin.withConnection { connection in
            try await connection.execute("""
                UPDATE identity.accounts SET membership_status = 'active'
                WHERE id = $1::uuid AND membership_status = 'waitlisted'
                """, [.text(accountID)])
        }
    }
}
