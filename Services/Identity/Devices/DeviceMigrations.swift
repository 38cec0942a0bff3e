import Postgres

/// Identity's migrations for push tokens (versions 40–49).
enum DeviceMigrations {
    /// One row per token and app; the row follows the token from account to account. Inactive
    /// rows say why (`inactive_reason`, the snake_case names of PushTokenInactiveReason).
    static let pushTokens = Migration(version: 40, name: "push tokens", sql: """
        CREATE TABLE identity.push_tokens (
            id uuid PRIMARY KEY,
            account_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
            app text NOT NULL,
            token text NOT NULL CHECK (length(token) BETWEEN 1 AND 1024),
            platform text NOT NULL CHECK (platform IN ('apns', 'fcm')),
            environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
            device_id text NOT NULL,
            app_version text NOT NULL DEFAULT '',
            active boolean NOT NULL DEFAULT true,
            inactive_reason text CHECK (inactive_reason IN
                ('unregistered', 'bad_device_token', 'not_for_topic', 'replaced', 'too_many_devices')),
            created_at timestamptz NOT NULL,
            last_seen_at timestamptz NOT NULL,
            deactivated_at timestamptz,
            UNIQUE (app, token),
            CHECK (active = (inactive_reason IS NULL))
        );
        CREATE INDEX push_tokens_by_account ON identity.push_tokens (account_id, last_seen_at DESC);
        """)

    /// PushKit VoIP tokens beside the alert tokens (devices.proto PushTokenKind).
    static let tokenKinds = Migration(version: 44, name: "push token kinds", sql: """
        ALTER TABLE identity.push_tokens ADD COLUMN kind text NOT NULL DEFAULT 'alert' CHECK (kind IN ('alert', 'voip'));
        ALTER TABLE identity.push_tokens ADD CONSTRAINT push_tokens_voip_is_apns CHECK (kind = 'alert' OR platform = 'apns');
        """)
}
