import CryptoCore
import Foundation
import Postgres

/// Signing keys in `identity.signing_keys`, private halves sealed with AES-256-GCM under the
/// key-encryption key (the `kid` is the associated data, so a sealed key cannot be moved to
/// another row).
///
/// Rotation with overlap: each key signs for `signingPeriod`; its successor is created and
/// published `publishAhead` before that ends, so verifiers know it before the first token it
/// signs; a retired key stays published while tokens it signed can still be valid (access token
/// lifetime plus the verifiers' cache age). Every instance may run `refresh`; an advisory lock
/// makes one of them create keys at a time.
struct SigningKeyStore: Sendable {
    let pool: PostgresPool
    let keyEncryptionKey: [UInt8]
    let signingPeriod: Int64
    let publishAhead: Int64
    /// How long after it stops signing a key stays published, seconds.
    let publishAfter: Int64

    private struct Row {
        var kid: String
        var sealed: [UInt8]
        var signsFrom: Date
        var signsUntil: Date
    }

    /// Creates keys as needed, then loads the signing key and the published set into `ring`.
    func refresh(into ring: KeyRing, now: Date = Date()) async throws {
        let rows = try await pool.withTransaction { connection -> [Row] in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext('identity.signing_keys'))")
            var rows = try await Self.published(on: connection)
            if !rows.contains(where: { $0.signsFrom <= now && now < $0.signsUntil }) {
                rows.append(try await insertKey(from: now, on: connection))
            }
            let latest = rows.map(\.signsUntil).max() ?? now
            if latest.timeIntervalSince(now) < Double(publishAhead) {
                rows.append(try await insertKey(from: latest, on: connection))
            }
            return rows
        }
        var signing: ECSigningKey?
        var signingFrom = Date.distantPast
        var published: [ECVerifyingKey] = []
        for row in rows {
            let pem = try AESGCM.open(row.sealed, key: keyEncryptionKey, associatedData: Array(row.kid.utf8))
            let key = try ECSigningKey(pem: pem, keyID: row.kid)
            published.append(key.verifyingKey)
            if row.signsFrom <= now, now < row.signsUntil, row.signsFrom > signingFrom {
                signing = key
                signingFrom = row.signsFrom
            }
        }
        guard let signing else { throw CryptoError(.invalidParameters, "no signing key covers the current time") }
        ring.replace(signing: signing, published: published)
    }

    private static func published(on connection: Connection) async throws -> [Row] {
        try await connection.query("""
            SELECT kid, sealed_private_key, signs_from, signs_until FROM identity.signing_keys
            WHERE published_until > now() ORDER BY signs_from
            """).map { row in
            Row(kid: try row.decode(0), sealed: try row.decode(1), signsFrom: try row.decode(2), signsUntil: try row.decode(3))
        }
    }

    private func insertKey(from start: Date, on connection: Connection) async throws -> Row {
        let kid = Base64URL.encode(SecureRandom.bytes(12))
        let key = try ECSigningKey.generate(keyID: kid)
        let sealed = try AESGCM.seal(try key.pemBytes(), key: keyEncryptionKey, associatedData: Array(kid.utf8))
        let until = start.addingTimeInterval(Double(signingPeriod))
        _ = try await connection.execute("""
            INSERT INTO identity.signing_keys (kid, sealed_private_key, signs_from, signs_until, published_until)
            VALUES ($1, $2, $3, $4, $5)
            """, [.text(kid), .bytea(sealed), .timestamptz(start), .timestamptz(until),
                  .timestamptz(until.addingTimeInterval(Double(publishAfter)))])
        return Row(kid: kid, sealed: sealed, signsFrom: start, signsUntil: until)
    }
}
