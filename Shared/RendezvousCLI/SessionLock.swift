#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GatewayClient

/// Several `rendezvous` processes of one user may start at once (a script, `watch` in another
/// terminal). Refresh tokens are single use and identity revokes the session when a spent one
/// comes back, so two processes refreshing the same stored session would sign the user out.
/// Each process therefore takes an exclusive lock on `<session file>.lock` while it reads the
/// session and, when the access token is about to expire, refreshes it; the next process then
/// reads the rotated tokens. The lock is not held for the command itself.
enum SessionLock {
    /// A token that expires within this is refreshed under the lock (more than the client's own
    /// 30 s margin, so the command's calls do not refresh again).
    static let margin: TimeInterval = 60

    static func refreshIfNeeded(_ client: GatewayClient, sessionPath: String) async {
        let fd = open(sessionPath + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { return }
        }
        defer { flock(fd, LOCK_UN) }
        guard let session = try? client.currentSession(),
              session.accessTokenExpiresAt.timeIntervalSinceNow < margin else { return }
        // A failure here (signed out, unreachable) is the command's to report when it calls.
        _ = try? await client.identity.refreshSession()
    }
}
