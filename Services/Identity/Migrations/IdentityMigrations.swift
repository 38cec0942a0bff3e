import Postgres
import Runtime

/// Schema `identity`, oldest first. An applied migration never changes: add a new one.
enum IdentityMigrations {
    /// The hash a device computes of each contact (contacts.proto): lowercase hex SHA-256 of the
    /// email lowercased and trimmed (password and verified provider emails), or of the E.164
    /// phone; kept by the database beside each credential, indexed per app.
    static let contactHashes = Migration(version: 43, name: "contact hashes", sql: """
        -- convert_to is STABLE in general; to UTF-8 it is not going to change, and a generated
        -- column needs an IMMUTABLE expression.
        CREATE FUNCTION identity.contact_hash(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') $$;
        ALTER TABLE identity.email_credentials ADD COLUMN contact_hash text
            GENERATED ALWAYS AS (identity.contact_hash(lower(btrim(email)))) STORED;
        CREATE INDEX email_credentials_by_contact ON identity.email_credentials (app, contact_hash);
        ALTER TABLE identity.phone_credentials ADD COLUMN contact_hash text
            GENERATED ALWAYS AS (identity.contact_hash(btrim(phone))) STORED;
        CREATE INDEX phone_credentials_by_contact ON identity.phone_credentials (app, contact_hash);
        ALTER TABLE identity.provider_credentials ADD COLUMN contact_hash text
            GENERATED ALWAYS AS (CASE WHEN email_verified AND email IS NOT NULL
                                      THEN identity.contact_hash(lower(btrim(email))) END) STORED;
        CREATE INDEX provider_credentials_by_contact ON identity.provider_credentials (app, contact_hash)
            WHERE contact_hash IS NOT NULL;
        """)

    static func all() throws -> [Migration] {
        [
            Migration(version: 1, name: "accounts", sql: """
                CREATE TABLE identity.accounts (
                    id uuid PRIMARY KEY,
                    app text NOT NULL,
                    username text NOT NULL,
                    anonymous boolean NOT NULL DEFAULT false,
                    role text NOT NULL,
                    tier text NOT NULL,
                    membership_status text NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    UNIQUE (app, username)
                );
                """),
            Migration(version: 2, name: "email credentials", sql: """
                CREATE TABLE identity.email_credentials (
                    account_id uuid PRIMARY KEY REFERENCES identity.accounts (id) ON DELETE CASCADE,
                    app text NOT NULL,
                    email text NOT NULL,
                    password_hash text NOT NULL,
                    failed_attempts integer NOT NULL DEFAULT 0,
                    first_failed_at timestamptz,
                    locked_until timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    UNIQUE (app, email)
                );
                """),
            Migration(version: 3, name: "sessions and refresh tokens", sql: """
                CREATE TABLE identity.sessions (
                    id uuid PRIMARY KEY,
                    account_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
                    app text NOT NULL,
                    device_name text NOT NULL DEFAULT '',
                    created_at timestamptz NOT NULL DEFAULT now(),
                    last_used_at timestamptz NOT NULL DEFAULT now(),
                    expires_at timestamptz NOT NULL,
                    revoked_at timestamptz,
                    revoked_reason text
                );
                CREATE INDEX sessions_active_by_account ON identity.sessions (account_id) WHERE revoked_at IS NULL;
                CREATE TABLE identity.refresh_tokens (
                    token_hash bytea PRIMARY KEY,
                    session_id uuid NOT NULL REFERENCES identity.sessions (id) ON DELETE CASCADE,
                    generation integer NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    expires_at timestamptz NOT NULL,
                    spent_at timestamptz
                );
                CREATE INDEX refresh_tokens_by_session ON identity.refresh_tokens (session_id);
                """),
            Migration(version: 4, name: "signing keys", sql: """
                CREATE TABLE identity.signing_keys (
                    kid text PRIMARY KEY,
                    sealed_private_key bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    signs_from timestamptz NOT NULL,
                    signs_until timestamptz NOT NULL,
                    published_until timestamptz NOT NULL
                );
                """),
            try Outbox(schema: "identity").migration(version: 5),
            try Outbox(schema: "identity").occurredAtIndexMigration(version: 6),
            SignInMigrations.credentials,
            DeviceMigrations.pushTokens,
        ] + profiles + MembershipMigrations.all() + [
            // Event-writing transactions commit in parallel (Outbox: cursors from transaction ids).
            try Outbox(schema: "identity").parallelWritersMigration(version: 41),
            // Where identity's consumers of other services' events (ApplicantEvents) stand.
            Migration(version: 42, name: "event cursors", sql: EventConsumer.ddl(schema: "identity")),
            contactHashes,
            DeviceMigrations.tokenKinds,
            SignInMigrations.accountCredentials,
            ReferralAttempts.migration,
            try Outbox(schema: "identity").traceContextMigration(version: 47),
            exportIndexes,
        ]
    }

    /// Any member may ask for their export (`ExportMyData`) at any time: each of its sections
    /// finds the member's rows by an index instead of reading the table whole
    /// (PersonalDataIndexTests holds every section to that). Every session of an account,
    /// revoked ones too, replaces the index of its active sessions alone (a sign-in still
    /// updates one index of sessions by account).
    static let exportIndexes = Migration(version: 48, name: "personal data export by index", sql: """
        CREATE INDEX IF NOT EXISTS sessions_by_account ON identity.sessions (account_id);
        DROP INDEX IF EXISTS identity.sessions_active_by_account;
        CREATE INDEX IF NOT EXISTS reports_by_reporter ON identity.reports (reporter_id);
        """)
}
