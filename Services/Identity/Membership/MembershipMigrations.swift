import Postgres

/// Membership's part of schema `identity` (versions 30–39), oldest first. An applied migration
/// never changes: add a new one.
enum MembershipMigrations {
    static func all() -> [Migration] {
        [tiers, tierGrants, appStore, referralsAndDecisions, publicWaitlist, videoCalls]
    }

    /// Tiers and their entitlements per app, as the seeds describe them (ÉLITE's free, plus and
    /// black; one tier elsewhere). The lowest rank is the app's default tier. NULL
    /// `likes_per_day` means unlimited.
    static let tiers = Migration(version: 30, name: "tiers and entitlements", sql: """
        CREATE TABLE identity.tiers (
            app text NOT NULL,
            tier text NOT NULL,
            rank integer NOT NULL,
            display_name text NOT NULL,
            likes_per_day integer CHECK (likes_per_day >= 0),
            super_likes_per_day integer NOT NULL DEFAULT 0 CHECK (super_likes_per_day >= 0),
            see_who_liked_you text NOT NULL DEFAULT 'hidden' CHECK (see_who_liked_you IN ('hidden', 'blurred', 'clear')),
            read_receipts boolean NOT NULL DEFAULT false,
            advanced_filters boolean NOT NULL DEFAULT false,
            incognito boolean NOT NULL DEFAULT false,
            boosts_per_month integer NOT NULL DEFAULT 0 CHECK (boosts_per_month >= 0),
            referral_codes_per_month integer NOT NULL DEFAULT 0 CHECK (referral_codes_per_month >= 0),
            priority_in_discovery boolean NOT NULL DEFAULT false,
            PRIMARY KEY (app, tier),
            UNIQUE (app, rank)
        );
        INSERT INTO identity.tiers (app, tier, rank, display_name, likes_per_day, super_likes_per_day, see_who_liked_you,
                                    read_receipts, advanced_filters, incognito, boosts_per_month,
                                    referral_codes_per_month, priority_in_discovery) VALUES
            ('elite', 'free', 0, 'ÉLITE', 5, 0, 'blurred', false, false, false, 0, 3, false),
            ('elite', 'plus', 1, 'ÉLITE+', NULL, 3, 'clear', true, true, false, 0, 5, true),
            ('elite', 'black', 2, 'ÉLITE BLACK', NULL, 3, 'clear', true, true, true, 4, 10, true),
            ('firstdate', 'free', 0, 'FirstDate', NULL, 1, 'hidden', true, true, false, 0, 0, false),
            ('swivo', 'free', 0, 'Swivo', NULL, 0, 'hidden', false, false, false, 0, 0, false),
            ('unseen', 'free', 0, 'The Unseen', NULL, 0, 'hidden', false, false, false, 0, 0, false),
            ('momento', 'free', 0, 'Momento', NULL, 0, 'hidden', false, false, false, 0, 0, false);
        """)

    /// Grants of a tier to an account (an admin's, one per App Store subscription) and the
    /// effective tier: the highest-ranked unexpired grant, else the app's lowest tier.
    ///
    /// `accounts.tier` caches the effective tier and `accounts.tier_expires_at` says when the
    /// cache may go stale (the earliest end of an active grant). `current_tier(a)` is what reads
    /// show: the cache while it is fresh, recomputed once it is not, so no read shows an expired
    /// grant even before the sweep writes the downgrade.
    static let tierGrants = Migration(version: 31, name: "tier grants", sql: """
        ALTER TABLE identity.accounts ADD COLUMN tier_expires_at timestamptz;
        CREATE INDEX accounts_tier_expiry ON identity.accounts (tier_expires_at) WHERE tier_expires_at IS NOT NULL;
        CREATE TABLE identity.tier_grants (
            account_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
            source text NOT NULL CHECK (source IN ('admin', 'app_store')),
            source_id text NOT NULL DEFAULT '',
            app text NOT NULL,
            tier text NOT NULL,
            expires_at timestamptz,
            granted_by uuid,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (account_id, source, source_id),
            FOREIGN KEY (app, tier) REFERENCES identity.tiers (app, tier)
        );
        CREATE FUNCTION identity.effective_tier(uuid, text) RETURNS text LANGUAGE sql STABLE AS $$
            SELECT COALESCE(
                (SELECT g.tier FROM identity.tier_grants g JOIN identity.tiers t ON t.app = g.app AND t.tier = g.tier
                 WHERE g.account_id = $1 AND (g.expires_at IS NULL OR g.expires_at > now())
                 ORDER BY t.rank DESC LIMIT 1),
                (SELECT t.tier FROM identity.tiers t WHERE t.app = $2 ORDER BY t.rank LIMIT 1),
                'free')
        $$;
        CREATE FUNCTION identity.current_tier(identity.accounts) RETURNS text LANGUAGE sql STABLE AS $$
            SELECT CASE WHEN ($1).tier_expires_at IS NULL OR ($1).tier_expires_at > now() THEN ($1).tier
                        ELSE identity.effective_tier(($1).id, ($1).app) END
        $$;
        """)

    /// App Store subscriptions (bound to the first account that applied one) and their
    /// transactions; each subscription's latest unrevoked transaction is its tier grant.
    static let appStore = Migration(version: 32, name: "app store transactions", sql: """
        CREATE TABLE identity.app_store_subscriptions (
            app text NOT NULL,
            original_transaction_id text NOT NULL,
            account_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
            bound_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (app, original_transaction_id)
        );
        CREATE INDEX app_store_subscriptions_by_account ON identity.app_store_subscriptions (account_id);
        CREATE TABLE identity.app_store_transactions (
            app text NOT NULL,
            transaction_id text NOT NULL,
            original_transaction_id text NOT NULL,
            product_id text NOT NULL,
            tier text NOT NULL,
            environment text NOT NULL,
            purchased_at timestamptz,
            expires_at timestamptz NOT NULL,
            revoked_at timestamptz,
            signed_at timestamptz NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (app, transaction_id),
            FOREIGN KEY (app, original_transaction_id)
                REFERENCES identity.app_store_subscriptions (app, original_transaction_id) ON DELETE CASCADE
        );
        CREATE INDEX app_store_transactions_by_subscription
            ON identity.app_store_transactions (app, original_transaction_id);
        """)

    /// ÉLITE referral codes, the committee's decisions, and the waitlist order index.
    static let referralsAndDecisions = Migration(version: 33, name: "referral codes and membership decisions", sql: """
        CREATE TABLE identity.referral_codes (
            app text NOT NULL,
            code text NOT NULL,
            owner_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
            created_at timestamptz NOT NULL DEFAULT now(),
            expires_at timestamptz,
            used_at timestamptz,
            used_by uuid REFERENCES identity.accounts (id) ON DELETE SET NULL,
            PRIMARY KEY (app, code)
        );
        CREATE INDEX referral_codes_by_owner ON identity.referral_codes (owner_id, created_at DESC);
        CREATE INDEX referral_codes_by_user ON identity.referral_codes (used_by) WHERE used_by IS NOT NULL;
        CREATE TABLE identity.membership_decisions (
            id uuid PRIMARY KEY,
            account_id uuid NOT NULL REFERENCES identity.accounts (id) ON DELETE CASCADE,
            app text NOT NULL,
            decision text NOT NULL CHECK (decision IN ('approved', 'rejected')),
            method text NOT NULL CHECK (method IN ('committee', 'referral')),
            reason text NOT NULL DEFAULT '',
            decided_by uuid,
            decided_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX membership_decisions_by_account ON identity.membership_decisions (account_id);
        CREATE INDEX accounts_waitlist_order ON identity.accounts (app, created_at, id)
            WHERE membership_status = 'waitlisted';
        """)

    /// Public email waitlists (FirstDate). `join_number` is dense per app: joins of one app
    /// take its counter row's lock, so numbers follow commit order without gaps.
    static let publicWaitlist = Migration(version: 34, name: "public waitlist", sql: """
        CREATE TABLE identity.waitlist_counters (
            app text PRIMARY KEY,
            joined bigint NOT NULL
        );
        CREATE TABLE identity.waitlist_entries (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            email text NOT NULL,
            referral_code text NOT NULL,
            join_number bigint NOT NULL,
            referrals integer NOT NULL DEFAULT 0,
            referred_by uuid REFERENCES identity.waitlist_entries (id) ON DELETE SET NULL,
            joined_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (app, email),
            UNIQUE (app, referral_code),
            UNIQUE (app, join_number)
        );
        CREATE INDEX waitlist_entries_referred_by ON identity.waitlist_entries (referred_by) WHERE referred_by IS NOT NULL;
        """)

    /// Video calling (messaging's calls.proto) is ÉLITE BLACK's.
    static let videoCalls = Migration(version: 35, name: "video calls entitlement", sql: """
        ALTER TABLE identity.tiers ADD COLUMN video_calls boolean NOT NULL DEFAULT false;
        UPDATE identity.tiers SET video_calls = true WHERE app = 'elite' AND tier = 'black';
        """)
}
