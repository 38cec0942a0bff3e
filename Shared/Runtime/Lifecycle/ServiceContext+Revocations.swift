package import Auth
package import RPC

extension ServiceContext {
    /// The access-token check of every service: `verifier`, then `revocations`, so a signed-out
    /// session's token is refused (TOKEN_REVOKED) and one older than its account's last change
    /// of role, tier or membership too (TOKEN_STALE), not only once it expires.
    /// An account its app has not admitted may call only `openBeforeAdmission` (NOT_ADMITTED).
    package func makeAuthInterceptor(verifier: AccessTokenVerifier, publicMethods: Set<String>,
                                     openBeforeAdmission: Set<String> = []) -> AuthInterceptor {
        AuthInterceptor(verifier: verifier, publicMethods: publicMethods, revocations: revocations,
                        openBeforeAdmission: openBeforeAdmission)
    }

    /// Keeps `revocations` current from identity's `WatchEvents` over `client` (a service
    /// credential identity accepts is required), for the life of the process.
    package func followRevocations(identity client: RPCClient, credential: ServiceCredential?) {
        startRevocationFeed(.remote(list: revocations, client: client, credential: credential, logger: logger))
    }

    /// Keeps `revocations` current from this process's own outbox: identity, whose sibling
    /// instances revoke too.
    package func followRevocations(events: EventStreamService) {
        startRevocationFeed(.local(list: revocations, events: events, logger: logger))
    }

    private func startRevocationFeed(_ feed: RevocationFeed) {
        metrics.addGaugeHook("auth_revocation_entries", help: "Revoked sessions and stale accounts held in memory") { [revocations] in
            Double(revocations.count)
        }
        addBackgroundJob("revocation feed") { await feed.run() }
    }
}
