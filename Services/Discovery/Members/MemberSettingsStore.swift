import Contracts
import Foundation
import Postgres

/// A member's own discovery settings (incognito, a running boost) on their projection row, and
/// the boosts they spent. A member who has not saved a profile yet gets an inactive row, which
/// their first ProfileUpdated fills in.
enum MemberSettingsStore {
    /// How long a boost lasts.
    static let boostLength = "30 minutes"

    static func settings(of account: UUID, boostsPerMonth: Int32, on connection: Connection) async throws -> Discovery.DiscoverySettings {
        let rows = try await connection.query("""
            SELECT coalesce(p.incognito, false),
                   CASE WHEN p.boosted_until > now() THEN \(UnixMicroseconds.sql("p.boosted_until")) END,
                   (SELECT count(*) FROM discovery.boosts b
                    WHERE b.account_id = $1 AND b.started_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')::int4
            FROM (SELECT 1) one LEFT JOIN discovery.profiles p ON p.account_id = $1
            """, [.uuid(account)])
        var settings = Discovery.DiscoverySettings()
        settings.incognito = try rows[0].decode(0)
        settings.boostedUntil = try rows[0].decode(1, as: Int64?.self).map { Timestamp(microseconds: $0) }
        let spent = try rows[0].decode(2, as: Int32.self)
        settings.boostsRemaining = boostsPerMonth < 0 ? -1 : max(0, boostsPerMonth - spent)
        return settings
    }

    static func setIncognito(_ incognito: Bool, of account: UUID, app: String, on connection: Connection) async throws {
        _ = try await connection.execute("""
            INSERT INTO discovery.profiles (account_id, app, incognito) VALUES ($1, $2, $3)
            ON CONFLICT (account_id) DO UPDATE SET incognito = EXCLUDED.incognito
            """, [.uuid(account), .text(app), .bool(incognito)])
    }

    /// Locks the member's row (made if missing) so two boosts at once spend one.
    static func lock(_ account: UUID, app: String, on connection: Connection) async throws {
        _ = try await connection.execute("""
            INSERT INTO discovery.profiles (account_id, app) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING
            """, [.uuid(account), .text(app)])
        _ = try await connection.query("SELECT 1 FROM discovery.profiles WHERE account_id = $1 FOR UPDATE", [.uuid(account)])
    }

    static func startBoost(of account: UUID, on connection: Connection) async throws {
        _ = try await connection.execute("INSERT INTO discovery.boosts (account_id) VALUES ($1)", [.uuid(account)])
        _ = try await connection.execute("""
            UPDATE discovery.profiles SET boosted_until = now() + interval '\(boostLength)' WHERE account_id = $1
            """, [.uuid(account)])
    }
}
