import Auth
import Contracts
import Postgres
import RPC
import Runtime

/// `rendezvous.messaging.v1.Push`: the caller's own push preferences (push.proto).
struct PushService: PushProvider {
    let pool: PostgresPool

    func getPushPreferences(_ request: Push.GetPushPreferencesRequest,
                            context: ServerCallContext) async throws -> Push.PushPreferences {
        let account = try context.requireAccount().accountUUID()
        let preferences = try await pool.withConnection { try await PushPreferencesStore.read(account, on: $0) }
        return Self.message(preferences)
    }

    func setPushPreferences(_ request: Push.SetPushPreferencesRequest,
                            context: ServerCallContext) async throws -> Push.PushPreferences {
        let account = try context.requireAccount().accountUUID()
        var changes: [NotificationCategory: Bool] = [:]
        for preference in request.categories {
            guard let category = NotificationCategory(rawValue: Int16(clamping: preference.category.rawValue)),
                  changes[category] == nil else { throw PushError.invalidCategory }
            changes[category] = preference.enabled
        }
        var quietHours: QuietHours?
        if let given = request.quietHours {
            let hours = QuietHours(startMinute: Int(given.startMinute), endMinute: Int(given.endMinute),
                                   utcOffsetMinutes: Int(given.utcOffsetMinutes))
            guard hours.isValid else { throw PushError.invalidQuietHours }
            quietHours = hours
        }
        let preferences = try await pool.withTransaction { connection in
            try await PushPreferencesStore.set(account, categories: changes, quietHours: quietHours, on: connection)
            return try await PushPreferencesStore.read(account, on: connection)
        }
        return Self.message(preferences)
    }

    private static func message(_ preferences: PushPreferencesStore.Preferences) -> Push.PushPreferences {
        var message = Push.PushPreferences()
        message.categories = NotificationCategory.allCases.map { category in
            var preference = Push.CategoryPreference()
            preference.category = Push.PushCategory(rawValue: Int32(category.rawValue))
            preference.enabled = preferences.enabled[category] ?? category.enabledByDefault
            return preference
        }
        var quiet = Push.QuietHours()
        quiet.startMinute = Int32(preferences.quietHours.startMinute)
        quiet.endMinute = Int32(preferences.quietHours.endMinute)
        quiet.utcOffsetMinutes = Int32(preferences.quietHours.utcOffsetMinutes)
        message.quietHours = quiet
        return message
    }
}
