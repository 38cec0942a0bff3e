import Postgres

/// Schema `identity`, versions 10–19: Apple/Google and phone credentials, and phone codes.
enum SignInMigrations {
    /// An Apple or Google identity (provider, subject) signs in to one account per app; a phone
    /// number likewise. Both belong to the account and go with it (ON DELETE CASCADE).
    /// `phone_codes` has no account: it exists before the first sign-in, holds only hashes, and
    /// is purged a day after its last send (`PhoneCodeStore.purgeStale`).
    static let credentials = Migration(version: 10, name: "provider and phone credentials, phone codes", sql: """
        CREATE TABLE identity.provider_credentials (
            account_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
            app text NOT NULL,
            provider text NOT NULL,
            subject text NOT NULL,
            email text,
            email_verified boolean NOT NULL DEFAULT false,
            created_at timestamptz NOT NULL DEFAULT now(),
            last_sign_in_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (app, provider, subject),
            UNIQUE (account_id, provider)
        );
        CREATE TABLE identity.phone_credentials (
            account_id uuid PRIMARY KEY REFERENCES identity.accounts (id) ON DELETE CASCADE,
            app text NOT NULL,
            phone text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (app, phone)
        );
        CREATE TABLE identity.phone_codes (
            app text NOT NULL,
            phone text NOT NULL,
            code_salt bytea,
            code_hash bytea,
            expires_at timestamptz,
            failed_attempts integer NOT NULL DEFAULT 0,
            last_sent_at timestamptz NOT NULL,
            window_started_at timestamptz NOT NULL,
            sends_in_window integer NOT NULL,
            PRIMARY KEY (app, phone)
        );
        CREATE INDEX phone_codes_by_last_sent ON identity.phone_codes (last_sent_at);
        """)
}
