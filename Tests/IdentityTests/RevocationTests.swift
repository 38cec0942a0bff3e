import Auth
import Contracts
import Foundation
@testable import Identity
import RPC
import Runtime
import Testing

/// Identity's side of issue 9 in-process, with the list the executable gives it: the events
/// it appends, its own list told at once, and the order between a refresh and a change of claims.
@Suite struct RevocationTests {
    static func seconds(_ timestamp: Timestamp?) -> Double {
        Double(timestamp?.seconds ?? 0) + Double(timestamp?.nanos ?? 0) / 1e9
    }

    @Test func signOut_appendsSessionsRevoked_andRefusesTheTokenAtOnce_otherSessionsUntouched() async throws {
        let list = RevocationList()
        let harness = try await IdentityHarness.start(revocations: list)
        let first = try await harness.signUp("firstdate")
        let email = try #require(first.account?.email)
        let second = try await harness.client.signInWithEmail(.init(app: "firstdate", email: email,
                                                                    password: "correct horse battery"))
        let before = Date().timeIntervalSince1970
        _ = try await harness.client.signOut(.init(), options: .bearer(first.accessToken))
        let refused = await rpcError { _ = try await harness.client.getAccount(options: .bearer(first.accessToken)) }
        #expect(refused?.code == .unauthenticated && refused?.reason == "TOKEN_REVOKED")
        _ = try await harness.client.getAccount(options: .bearer(second.accessToken))

        let events = try await harness.events("SessionsRevoked", about: try #require(first.account?.id),
                                              as: Identity.SessionsRevoked.self)
        let event = try #require(events.last)
        #expect(event.sessionIDs == [first.sessionID] && event.reason == "signed_out" && event.app == "firstdate")
        let validFor = Self.seconds(event.validUntil) - Self.seconds(event.revokedAt)
        #expect(abs(validFor - 900) < 0.01)
        #expect(Self.seconds(event.revokedAt) >= before - 1)
        await harness.stop()
    }

    @Test func tierChange_appendsAccountClaimsChanged_andTheOldTokenIsStale_theRefreshedOneIsNot() async throws {
        let list = RevocationList()
        let harness = try await IdentityHarness.start(revocations: list)
        let admin = try await harness.admin("elite")
        let member = try await harness.member("elite")
        let memberID = try #require(member.account?.id)
        _ = try await harness.membership.setTier(.init(accountID: memberID, tier: "plus"), options: .bearer(admin.accessToken))
        let stale = await rpcError { _ = try await harness.client.getAccount(options: .bearer(member.accessToken)) }
        #expect(stale?.code == .unauthenticated && stale?.reason == "TOKEN_STALE")
        let refreshed = try await harness.client.refreshSession(.init(refreshToken: member.refreshToken))
        #expect(try await harness.client.getAccount(options: .bearer(refreshed.accessToken)).tier == "plus")
        let changed = try await harness.events("AccountClaimsChanged", about: memberID, as: Identity.AccountClaimsChanged.self)
        #expect(changed.last?.changed == "tier" && changed.last?.app == "elite")
        await harness.stop()
    }

    /// A refresh that reads the account while a change of tier is under way (row locked, event
    /// appended, not yet committed) waits for it, so its token carries the new tier and passes.
    @Test func refreshDuringAnUncommittedTierChange_waitsForIt_andItsTokenCarriesTheNewTier() async throws {
        let list = RevocationList()
        let harness = try await IdentityHarness.start(revocations: list)
        let member = try await harness.member("elite")
        let id = try IdentityHarness.id(member)
        let refreshing = try await harness.pool.withTransaction { connection in
            _ = try await connection.query("SELECT 1 FROM identity.accounts WHERE id = $1 FOR UPDATE", [.uuid(id)])
            _ = try await connection.execute("UPDATE identity.accounts SET tier = 'plus' WHERE id = $1", [.uuid(id)])
            try await TokenRevocations(outbox: try Outbox(schema: "identity"), list: list)
                .claimsChanged(accountID: id, app: "elite", changed: "tier", on: connection)
            let refresh = Task { try await harness.client.refreshSession(.init(refreshToken: member.refreshToken)) }
            try await Task.sleep(for: .milliseconds(300))
            return refresh
        }
        let session = try await refreshing.value
        let claims = try #require(AccessTokenClaims(try accessTokenClaims(session.accessToken)))
        #expect(claims.account.tier == "plus")
        #expect(list.check(claims.account) == .valid)
        await harness.stop()
    }

    /// However a refresh and a tier change interleave, the refreshed token carries the tier the
    /// account ends with, or the list already refuses it as stale.
    @Test func refreshRacingTierChanges_neverYieldsATokenWithOldClaimsThatPasses() async throws {
        let list = RevocationList()
        let harness = try await IdentityHarness.start(revocations: list)
        let admin = try await harness.admin("elite")
        var member = try await harness.member("elite")
        let memberID = try #require(member.account?.id)
        for round in 0..<12 {
            let tier = round % 2 == 0 ? "plus" : "free"
            let refreshToken = member.refreshToken
            async let refreshing = harness.client.refreshSession(.init(refreshToken: refreshToken))
            async let setting = harness.membership.setTier(.init(accountID: memberID, tier: tier),
                                                           options: .bearer(admin.accessToken))
            member = try await refreshing
            _ = try await setting
            let claims = try #require(AccessTokenClaims(try accessTokenClaims(member.accessToken)))
            if claims.account.tier != tier {
                #expect(list.check(claims.account) == .stale, "round \(round): a token with tier \(claims.account.tier) passes")
            }
        }
        await harness.stop()
    }
}
