import Foundation
import Postgres

/// Each user's push choices (`messaging.push_categories`, `messaging.push_quiet_hours`): only
/// the categories a user changed have a row; the rest follow `NotificationCategory.enabledByDefault`.
enum PushPreferencesStore {
    struct Preferences: Sendable, Equatable {
        var enabled: [NotificationCategory: Bool]
        var quietHours: QuietHours
    }

    static func read(_ account: UUID, on connection: Connection) async throws -> Preferences {
        var enabled = Dictionary(uniqueKeysWithValues: NotificationCategory.allCases.map { ($0, $0.enabledByDefault) })
        for row in try await connection.query("SELECT category, enabled FROM messaging.push_categories WHERE account_id = $1",
                                              [.uuid(account)]) {
            if let category = NotificationCategory(rawValue: try row.decode(0, as: Int16.self)) {
                enabled[category] = try row.decode(1, as: Bool.self)
            }
        }
        var quiet = QuietHours.none
        if let row = try await connection.query("""
            SELECT start_minute, end_minute, utc_offset_minutes FROM messaging.push_quiet_hours WHERE account_id = $1
            """, [.uuid(account)]).first {
            quiet = QuietHours(startMinute: Int(try row.decode(0, as: Int32.self)), endMinute: Int(try row.decode(1, as: Int32.self)),
                               utcOffsetMinutes: Int(try row.decode(2, as: Int32.self)))
        }
        return Preferences(enabled: enabled, quietHours: quiet)
    }

    static func set(_ account: UUID, categories: [NotificationCategory: Bool], quietHours: QuietHours?,
                    on connection: Connection) async throws {
        for (category, enabled) in categories {
            _ = try await connection.execute("""
                INSERT INTO messaging.push_categories (account_id, category, enabled) VALUES ($1, $2, $3)
                ON CONFLICT (account_id, category) DO UPDATE SET enabled = EXCLUDED.enabled
                """, [.uuid(account), .int16(category.rawValue), .bool(enabled)])
        }
        if let quietHours {
            _ = try await connection.execute("""
                INSERT INTO messaging.push_quiet_hours (account_id, start_minute, end_minute, utc_offset_minutes)
                VALUES ($1, $2, $3, $4)
                ON CONFLICT (account_id) DO UPDATE SET start_minute = EXCLUDED.start_minute,
                    end_minute = EXCLUDED.end_minute, utc_offset_minutes = EXCLUDED.utc_offset_minutes
                """, [.uuid(account), .int32(Int32(quietHours.startMinute)), .int32(Int32(quietHours.endMinute)),
                      .int32(Int32(quietHours.utcOffsetMinutes))])
        }
    }

    /// A deleted account leaves nothing of push here: its choices, pending pushes and log.
    static func purge(_ account: UUID, on connection: Connection) async throws {
        _ = try await connection.execute("""
            WITH c AS (DELETE FROM messaging.push_categories WHERE account_id = $1),
                 q AS (DELETE FROM messaging.push_quiet_hours WHERE account_id = $1),
                 j AS (DELETE FROM messaging.push_jobs WHERE account_id = $1)
            DELETE FROM messaging.push_deliveries WHERE account_id = $1
            """, [.uuid(account)])
    }
}
