import Postgres

/// Profiles, blocks and reports (versions 20–29).
///
/// Locations are PostGIS `geography(Point, 4326)` (the extension lives in schema `public`,
/// which every service role may use) with a GiST index, so distance queries are index-backed.
extension IdentityMigrations {
    static let profiles: [Migration] = [
        Migration(version: 20, name: "profiles", sql: """
            CREATE TABLE identity.profiles (
                account_id uuid PRIMARY KEY REFERENCES identity.accounts (id) ON DELETE CASCADE,
                app text NOT NULL,
                display_name text NOT NULL DEFAULT '',
                show_real_name boolean NOT NULL DEFAULT false,
                first_name text NOT NULL DEFAULT '',
                last_name text NOT NULL DEFAULT '',
                birth_date date,
                gender text CHECK (gender IN ('female', 'male', 'non_binary')),
                bio text NOT NULL DEFAULT '',
                title text NOT NULL DEFAULT '',
                tags text[] NOT NULL DEFAULT '{}',
                interests text[] NOT NULL DEFAULT '{}',
                preferred_cuisines text[] NOT NULL DEFAULT '{}',
                neighborhood text NOT NULL DEFAULT '',
                location public.geography(Point, 4326),
                active boolean NOT NULL DEFAULT true,
                onboarding_complete boolean NOT NULL DEFAULT false,
                verified boolean NOT NULL DEFAULT false,
                photo_ids uuid[] NOT NULL DEFAULT '{}',
                last_active_at timestamptz,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz
            );
            CREATE INDEX profiles_location ON identity.profiles USING gist (location);
            CREATE INDEX profiles_active_by_app ON identity.profiles (app) WHERE active;
            CREATE INDEX accounts_by_app_and_age ON identity.accounts (app, created_at, id);
            """),
        Migration(version: 21, name: "blocks", sql: """
            CREATE TABLE identity.blocks (
                blocker_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
                blocked_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
                app text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (blocker_id, blocked_id),
                CHECK (blocker_id <> blocked_id)
            );
            CREATE INDEX blocks_by_blocked ON identity.blocks (blocked_id, blocker_id);
            CREATE INDEX blocks_by_blocker_newest ON identity.blocks (blocker_id, created_at DESC, blocked_id DESC);
            """),
        Migration(version: 22, name: "reports", sql: """
            CREATE TABLE identity.reports (
                id uuid PRIMARY KEY,
                app text NOT NULL,
                reporter_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
                reported_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
                reason text NOT NULL
                    CHECK (reason IN ('spam', 'harassment', 'inappropriate', 'fake', 'underage', 'other')),
                details text NOT NULL DEFAULT '',
                status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'reviewed', 'resolved')),
                created_at timestamptz NOT NULL DEFAULT now(),
                reviewer_id uuid REFERENCES identity.accounts (id) ON DELETE SET NULL,
                reviewed_at timestamptz,
                review_note text NOT NULL DEFAULT '',
                resolver_id uuid REFERENCES identity.accounts (id) ON DELETE SET NULL,
                resolved_at timestamptz,
                resolution_note text NOT NULL DEFAULT '',
                CHECK (reporter_id <> reported_id)
            );
            CREATE INDEX reports_queue ON identity.reports (app, status, created_at, id);
            CREATE INDEX reports_by_reported ON identity.reports (reported_id, created_at, id);
            CREATE UNIQUE INDEX reports_one_open_per_pair ON identity.reports (reporter_id, reported_id)
                WHERE status <> 'resolved';
            """),
    ]
}
