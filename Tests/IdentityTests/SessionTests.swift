import Contracts
import Foundation
import Synchronization
import RPC
import Testing

/// Refresh rotation, reuse detection, sign-out and session listing.
@Suite struct SessionTests {
    @Test func refresh_rotatesBothTokens_andTheNewRefreshTokenWorks() async throws {
        let harness = try await IdentityHarness.start()
        let first = try await harness.client.signInAnonymously(.init(app: "unseen"))
        let second = try await harness.client.refreshSession(.init(refreshToken: first.refreshToken))
        #expect(second.refreshToken != first.refreshToken)
        #expect(second.sessionID == first.sessionID)
        #expect(second.account?.id == first.account?.id)
        let third = try await harness.client.refreshSession(.init(refreshToken: second.refreshToken))
        #expect(third.sessionID == first.sessionID)
        _ = try await harness.client.getAccount(options: .bearer(third.accessToken))
        await harness.stop()
    }

    @Test func refresh_withSpentToken_isReused_andRevokesTheWholeFamily() async throws {
        let harness = try await IdentityHarness.start()
        let first = try await harness.client.signInAnonymously(.init(app: "unseen"))
        let second = try await harness.client.refreshSession(.init(refreshToken: first.refreshToken))
        let reused = await rpcError { _ = try await harness.client.refreshSession(.init(refreshToken: first.refreshToken)) }
        #expect(reused?.code == .unauthenticated && reused?.reason == "REFRESH_TOKEN_REUSED")
        let revoked = await rpcError { _ = try await harness.client.refreshSession(.init(refreshToken: second.refreshToken)) }
        #expect(revoked?.code == .unauthenticated && revoked?.reason == "SESSION_REVOKED")
        let unknown = await rpcError { _ = try await harness.client.refreshSession(.init(refreshToken: "not-a-token")) }
        #expect(unknown?.code == .unauthenticated && unknown?.reason == "INVALID_REFRESH_TOKEN")
        await harness.stop()
    }

    @Test func refresh_concurrentlyWithOneToken_exactlyOneSucceeds() async throws {
        let harness = try await IdentityHarness.start()
        let session = try await harness.client.signInAnonymously(.init(app: "swivo"))
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    do {
                        _ = try await harness.client.refreshSession(.init(refreshToken: session.refreshToken))
                        return true
                    } catch let error as RPCError {
                        #expect(error.code == .unauthenticated)
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
        await harness.stop()
    }

    @Test func signOut_currentSession_thenAll_revokesRefresh() async throws {
        let harness = try await IdentityHarness.start()
        let email = IdentityHarness.uniqueEmail()
        let phone = try await harness.client.signUpWithEmail(.init(app: "momento", email: email, password: "correct horse battery",
                                                                   deviceName: "phone"))
        let tablet = try await harness.client.signInWithEmail(.init(app: "momento", email: email, password: "correct horse battery",
                                                                    deviceName: "tablet"))
        let laptop = try await harness.client.signInWithEmail(.init(app: "momento", email: email, password: "correct horse battery",
                                                                    deviceName: "laptop"))
        let listed = try await harness.client.listSessions(options: .bearer(phone.accessToken)).sessions
        #expect(Set(listed.map(\.deviceName)) == ["phone", "tablet", "laptop"])
        #expect(listed.filter(\.current).map(\.id) == [phone.sessionID])

        let one = try await harness.client.signOut(.init(), options: .bearer(phone.accessToken))
        #expect(one.revokedSessions == 1)
        let afterOne = await rpcError { _ = try await harness.client.refreshSession(.init(refreshToken: phone.refreshToken)) }
        #expect(afterOne?.reason == "SESSION_REVOKED")
        let remaining = try await harness.client.listSessions(options: .bearer(tablet.accessToken)).sessions
        #expect(Set(remaining.map(\.id)) == [tablet.sessionID, laptop.sessionID])

        let missing = await rpcError {
            _ = try await harness.client.signOut(.init(sessionID: phone.sessionID), options: .bearer(tablet.accessToken))
        }
        #expect(missing?.code == .notFound && missing?.reason == "SESSION_NOT_FOUND")

        let all = try await harness.client.signOut(.init(allSessions: true), options: .bearer(tablet.accessToken))
        #expect(all.revokedSessions == 2)
        for token in [tablet.refreshToken, laptop.refreshToken] {
            let error = await rpcError { _ = try await harness.client.refreshSession(.init(refreshToken: token)) }
            #expect(error?.reason == "SESSION_REVOKED")
        }
        await harness.stop()
    }

    @Test func authenticatedMethods_withoutToken_areUnauthenticated() async throws {
        let harness = try await IdentityHarness.start()
        let missing = await rpcError { _ = try await harness.client.listSessions(options: .init()) }
        #expect(missing?.code == .unauthenticated && missing?.reason == "MISSING_TOKEN")
        let garbage = await rpcError { _ = try await harness.client.getAccount(options: .bearer("a.b.c")) }
        #expect(garbage?.code == .unauthenticated && garbage?.reason == "MALFORMED_TOKEN")
        await harness.stop()
    }
}
