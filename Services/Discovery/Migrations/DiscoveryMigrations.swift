import Postgres
import Runtime

/// Schema `discovery`: the profile projection fed by identity's events, swipes, matches, the
/// daily allowance counters, the event cursor and discovery's own outbox.
enum DiscoveryMigrations {
    static func all() throws -> [Migration] {
        let outbox = try Outbox(schema: "discovery")
        return [
            Migration(version: 1, name: "profile projection", sql: """
                CREATE TABLE discovery.profiles (
                    account_id uuid PRIMARY KEY,
                    app text NOT NULL,
                    active boolean NOT NULL DEFAULT false,
                    public_name text NOT NULL DEFAULT '',
                    gender integer NOT NULL DEFAULT 0,
                    birth_date date,
                    bio text NOT NULL DEFAULT '',
                    title text NOT NULL DEFAULT '',
                    tags text[] NOT NULL DEFAULT '{}',
                    interests text[] NOT NULL DEFAULT '{}',
                    cuisines text[] NOT NULL DEFAULT '{}',
                    neighborhood text NOT NULL DEFAULT '',
                    location geography(Point, 4326),
                    photo_ids text[] NOT NULL DEFAULT '{}',
                    verified boolean NOT NULL DEFAULT false,
                    tier text NOT NULL DEFAULT '',
                    last_active_at timestamptz,
                    -- When the profile first appeared here: feeds fix their moment, so later
                    -- arrivals do not shift pages still to come.
                    listed_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE INDEX profiles_by_app ON discovery.profiles (app) WHERE active;
                CREATE INDEX profiles_by_location ON discovery.profiles USING gist (location) WHERE active;
                CREATE TABLE discovery.blocks (
                    blocker_id uuid NOT NULL,
                    blocked_id uuid NOT NULL,
                    PRIMARY KEY (blocker_id, blocked_id)
                );
                CREATE INDEX blocks_by_blocked ON discovery.blocks (blocked_id);
                CREATE TABLE discovery.reports (
                    reporter_id uuid NOT NULL,
                    reported_id uuid NOT NULL,
                    PRIMARY KEY (reporter_id, reported_id)
                );
                """),
            Migration(version: 2, name: "swipes and matches", sql: """
                CREATE TABLE discovery.swipes (
                    swiper_id uuid NOT NULL,
                    target_id uuid NOT NULL,
                    app text NOT NULL,
                    action smallint NOT NULL CHECK (action BETWEEN 1 AND 3),
                    created_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (swiper_id, target_id)
                );
                CREATE INDEX swipes_likes_by_target ON discovery.swipes (target_id, created_at DESC) WHERE action >= 2;
                CREATE TABLE discovery.matches (
                    id uuid PRIMARY KEY,
                    app text NOT NULL,
                    account_low uuid NOT NULL,
                    account_high uuid NOT NULL,
                    super_like boolean NOT NULL DEFAULT false,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    ended_at timestamptz,
                    ended_by uuid,
                    end_reason smallint,
                    CHECK (account_low < account_high),
                    UNIQUE (account_low, account_high)
                );
                CREATE INDEX matches_by_high ON discovery.matches (account_high);
                CREATE TABLE discovery.daily_usage (
                    account_id uuid NOT NULL,
                    day date NOT NULL,
                    likes integer NOT NULL DEFAULT 0,
                    super_likes integer NOT NULL DEFAULT 0,
                    PRIMARY KEY (account_id, day)
                );
                """),
            Migration(version: 3, name: "event cursors", sql: EventConsumer.ddl(schema: "discovery")),
        ] + outbox.migrations(from: 4) + [outbox.occurredAtIndexMigration(version: 6), groupSessions, SessionCatalog.seed, recencyIndex, memberSettings, connections, instagram,
                likeIDs, admission, feedVersions, swipeFunction, olderSwipeWriters, outbox.traceContextMigration(version: 18),
                ownSwipesApart, appLocationIndex, exportIndexes]
    }

    /// Any member may ask for their export (`ExportMyData`) at any time: each of its sections
    /// finds the member's rows by an index instead of reading the table whole
    /// (PersonalDataIndexTests holds every section to that).
    static let exportIndexes = Migration(version: 21, name: "personal data export by index", sql: """
        CREATE INDEX IF NOT EXISTS group_sessions_by_creator ON discovery.group_sessions (creator_id);
        CREATE INDEX IF NOT EXISTS session_likes_by_account ON discovery.session_likes (account_id);
        """)

    /// Swivo's group sessions: categories and their options (seeded by `SessionCatalog`), sessions
    /// with their quorum and invite code, participants, and likes (dislikes are not stored).
    static let groupSessions = Migration(version: 7, name: "group sessions", sql: """
        CREATE TABLE discovery.categories (
            id text PRIMARY KEY,
            name text NOT NULL,
            icon text NOT NULL DEFAULT '',
            position integer NOT NULL
        );
        CREATE TABLE discovery.options (
            id text PRIMARY KEY,
            category_id text NOT NULL REFERENCES discovery.categories (id),
            label text NOT NULL,
            image_url text NOT NULL DEFAULT '',
            position integer NOT NULL
        );
        CREATE INDEX options_by_category ON discovery.options (category_id, position);
        CREATE TABLE discovery.group_sessions (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            category_id text NOT NULL REFERENCES discovery.categories (id),
            quorum smallint NOT NULL CHECK (quorum BETWEEN 2 AND 5),
            status smallint NOT NULL DEFAULT 1 CHECK (status BETWEEN 1 AND 3),
            invite_code text NOT NULL,
            creator_id uuid NOT NULL,
            matched_option_id text REFERENCES discovery.options (id),
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(),
            ended_at timestamptz,
            UNIQUE (app, invite_code)
        );
        CREATE TABLE discovery.session_participants (
            session_id uuid NOT NULL REFERENCES discovery.group_sessions (id) ON DELETE CASCADE,
            account_id uuid NOT NULL,
            joined_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (session_id, account_id)
        );
        CREATE INDEX session_participants_by_account ON discovery.session_participants (account_id);
        CREATE TABLE discovery.session_likes (
            session_id uuid NOT NULL REFERENCES discovery.group_sessions (id) ON DELETE CASCADE,
            option_id text NOT NULL REFERENCES discovery.options (id),
            account_id uuid NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (session_id, option_id, account_id)
        );
        """)

    /// The feed's window for a viewer without a location: the app's most recently active people.
    static let recencyIndex = Migration(version: 9, name: "profiles by recency", sql: """
        CREATE INDEX profiles_by_recency ON discovery.profiles (app, (coalesce(last_active_at, listed_at)) DESC, account_id)
        WHERE active;
        """)

    /// The feed's nearest-first window by app and place at once. `profiles_by_location` orders
    /// every app's profiles by distance, and the window's scan skips the other apps' one by one:
    /// an app sharing a city with a larger one read several times its own rows (600 ÉLITE
    /// profiles from 3,181 index entries beside 100,000 of another app in the same place; 835
    /// buffers instead of 3,434 with this index). A GiST index on text needs btree_gist, which
    /// provisioning creates as admin (`compose/postgres/service-roles.sh`; the service's role may
    /// not create extensions); on a database provisioned before, the migration leaves the index
    /// out and the feed reads as before (README, "Discovery").
    static let appLocationIndex = Migration(version: 20, name: "profiles by app and location", sql: """
        DO $$
        BEGIN
            IF EXISTS (SELECT FROM pg_extension WHERE extname = 'btree_gist') THEN
                CREATE INDEX profiles_by_app_location ON discovery.profiles USING gist (app, location) WHERE active;
            END IF;
        END $$;
        """)

    /// Whether `profiles_by_app_location` exists: migration 20 leaves it out where btree_gist was
    /// missing, and the service says so at start (nothing else would tell the operator).
    static func hasAppLocationIndex(_ pool: PostgresPool) async throws -> Bool {
        try await pool.withConnection { connection in
            try await connection.query(
                "SELECT 1 FROM pg_indexes WHERE schemaname = 'discovery' AND indexname = 'profiles_by_app_location'")
        }.count == 1
    }

    /// Discovery's own per-member settings (incognito, a running boost), the boosts spent, and
    /// whether a swipe was a quiz answer (never part of a match).
    static let memberSettings = Migration(version: 10, name: "incognito, boosts and quiz swipes", sql: """
        ALTER TABLE discovery.profiles ADD COLUMN incognito boolean NOT NULL DEFAULT false,
                                       ADD COLUMN boosted_until timestamptz;
        CREATE TABLE discovery.boosts (
            account_id uuid NOT NULL,
            started_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (account_id, started_at)
        );
        ALTER TABLE discovery.swipes ADD COLUMN quiz boolean NOT NULL DEFAULT false;
        """)

    /// Who knows whom, by source (`ConnectionStore.Source`: referral, contacts, instagram); mutual connections rank first in feeds.
    static let connections = Migration(version: 11, name: "connections", sql: """
        CREATE TABLE discovery.connections (
            account_id uuid NOT NULL,
            other_id uuid NOT NULL,
            source smallint NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (account_id, other_id)
        );
        """)

    /// Members' Instagram accounts, linked by an import with the account's token, and the
    /// Instagram accounts each member's last import listed (followings and followers).
    static let instagram = Migration(version: 12, name: "instagram links", sql: """
        CREATE TABLE discovery.instagram_links (
            account_id uuid PRIMARY KEY,
            app text NOT NULL,
            instagram_id text NOT NULL,
            username text NOT NULL DEFAULT '',
            linked_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (app, instagram_id)
        );
        CREATE TABLE discovery.instagram_related (
            account_id uuid NOT NULL,
            instagram_id text NOT NULL,
            PRIMARY KEY (account_id, instagram_id)
        );
        CREATE INDEX instagram_related_by_instagram_id ON discovery.instagram_related (instagram_id);
        """)

    /// Each swipe's own random id, the tiebreak of the likes a member received: their page
    /// token held the liker's account id, which a tier that sees likes blurred must not learn.
    static let likeIDs = Migration(version: 13, name: "swipe ids", sql: """
        ALTER TABLE discovery.swipes ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid();
        """)

    /// Whether the member's app admits them (identity's ProfileUpdated `not_admitted`,
    /// MembershipApproved, MembershipRejected): one not admitted (ÉLITE: waitlisted, rejected)
    /// is no one's card and no one's swipe target. Rows from before it count as admitted.
    static let admission = Migration(version: 14, name: "admission", sql: """
        ALTER TABLE discovery.profiles ADD COLUMN admitted boolean NOT NULL DEFAULT true;
        """)

    /// What feeds' cached windows are checked against (`FeedStamp`, `FeedWindowCache`): a version
    /// per app, bumped by every change of its profiles (statement triggers: a bulk load bumps
    /// once) or of connections (mutual counts), and one per member, bumped by their swipes (since
    /// migration 16 by `discovery.swipe`, this release's one writer; older releases' swipes by
    /// migration 17's trigger), by blocks either way and by their
    /// reports. Triggers, so that every writer bumps them, on every instance. And the app's
    /// latest listing, one index probe away.
    static let feedVersions = Migration(version: 15, name: "feed versions", sql: """
        CREATE TABLE discovery.feed_app_versions (
            app text PRIMARY KEY,
            version bigint NOT NULL
        );
        CREATE TABLE discovery.feed_member_versions (
            account_id uuid PRIMARY KEY,
            version bigint NOT NULL
        );
        CREATE INDEX profiles_by_listing ON discovery.profiles (app, listed_at);

        CREATE FUNCTION discovery.bump_feed_apps(apps text[]) RETURNS void LANGUAGE sql AS $$
            INSERT INTO discovery.feed_app_versions AS v (app, version)
            SELECT DISTINCT a, 1 FROM unnest(apps) a WHERE a IS NOT NULL
            ON CONFLICT (app) DO UPDATE SET version = v.version + 1
        $$;
        CREATE FUNCTION discovery.bump_feed_members(members uuid[]) RETURNS void LANGUAGE sql AS $$
            INSERT INTO discovery.feed_member_versions AS v (account_id, version)
            SELECT DISTINCT m, 1 FROM unnest(members) m
            ON CONFLICT (account_id) DO UPDATE SET version = v.version + 1
        $$;

        CREATE FUNCTION discovery.feed_profiles_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'DELETE' THEN PERFORM discovery.bump_feed_apps(ARRAY(SELECT DISTINCT app FROM new_rows)); END IF;
            IF TG_OP <> 'INSERT' THEN PERFORM discovery.bump_feed_apps(ARRAY(SELECT DISTINCT app FROM old_rows)); END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER feed_profiles_inserted AFTER INSERT ON discovery.profiles
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION discovery.feed_profiles_changed();
        CREATE TRIGGER feed_profiles_updated AFTER UPDATE ON discovery.profiles
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION discovery.feed_profiles_changed();
        CREATE TRIGGER feed_profiles_deleted AFTER DELETE ON discovery.profiles
            REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION discovery.feed_profiles_changed();

        -- Connections have no app: their members' profiles tell it.
        CREATE FUNCTION discovery.feed_connections_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM discovery.bump_feed_apps(ARRAY(
                SELECT p.app FROM discovery.profiles p
                WHERE p.account_id IN (SELECT account_id FROM changed UNION SELECT other_id FROM changed)));
            RETURN NULL;
        END $$;
        CREATE TRIGGER feed_connections_inserted AFTER INSERT ON discovery.connections
            REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION discovery.feed_connections_changed();
        CREATE TRIGGER feed_connections_deleted AFTER DELETE ON discovery.connections
            REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION discovery.feed_connections_changed();

        -- Swipes are only ever added (a person's are deleted with their profile, which bumps the app).
        CREATE FUNCTION discovery.feed_swipe_added() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO discovery.feed_member_versions AS v (account_id, version) VALUES (NEW.swiper_id, 1)
            ON CONFLICT (account_id) DO UPDATE SET version = v.version + 1;
            RETURN NULL;
        END $$;
        CREATE TRIGGER feed_swipe_added AFTER INSERT ON discovery.swipes
            FOR EACH ROW EXECUTE FUNCTION discovery.feed_swipe_added();

        CREATE FUNCTION discovery.feed_block_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE changed discovery.blocks := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
        BEGIN
            PERFORM discovery.bump_feed_members(ARRAY[changed.blocker_id, changed.blocked_id]);
            RETURN NULL;
        END $$;
        CREATE TRIGGER feed_block_changed AFTER INSERT OR DELETE ON discovery.blocks
            FOR EACH ROW EXECUTE FUNCTION discovery.feed_block_changed();

        CREATE FUNCTION discovery.feed_report_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM discovery.bump_feed_members(ARRAY[CASE WHEN TG_OP = 'DELETE' THEN OLD.reporter_id ELSE NEW.reporter_id END]);
            RETURN NULL;
        END $$;
        CREATE TRIGGER feed_report_changed AFTER INSERT OR DELETE ON discovery.reports
            FOR EACH ROW EXECUTE FUNCTION discovery.feed_report_changed();
        """)

    /// A swipe in one statement (`SwipeStore.swipe`): the pair's lock, what the swiper may do,
    /// the day's allowance, the row and the swiper's feed version (migration 15), so a swipe
    /// that makes no match is one round trip and one commit. A like that would complete a match writes nothing unless `match_allowed`: the
    /// caller then runs it again inside the transaction that also creates the match.
    /// Outcomes: 1 recorded, 2 already swiped (nothing written), 3 target not visible, 4
    /// allowance spent, 5 would match.
    static let swipeFunction = Migration(version: 16, name: "swipe function", sql: """
        CREATE FUNCTION discovery.swipe(p_swiper uuid, p_target uuid, p_app text, p_action smallint, p_quiz boolean,
                                        p_limit integer, p_day integer, p_match_allowed boolean,
                                        OUT outcome smallint, OUT action smallint, OUT swiped_at bigint,
                                        OUT liked_back smallint, OUT likes integer, OUT super_likes integer)
        LANGUAGE plpgsql AS $$
        #variable_conflict use_column
        DECLARE
            v_day date := date '1970-01-01' + p_day;
            v_created timestamptz;
        BEGIN
            -- Swipes between the same two people queue here, whoever swipes and on whichever
            -- instance: the later of two crossing likes then sees the earlier and makes the match.
            PERFORM pg_advisory_xact_lock(hashtextextended(LEAST(p_swiper, p_target)::text || GREATEST(p_swiper, p_target)::text, 7102));
            SELECT coalesce(u.likes, 0), coalesce(u.super_likes, 0) INTO likes, super_likes
            FROM (SELECT 1) one LEFT JOIN discovery.daily_usage u ON u.account_id = p_swiper AND u.day = v_day;
            SELECT s.action, s.created_at INTO action, v_created
            FROM discovery.swipes s WHERE s.swiper_id = p_swiper AND s.target_id = p_target;
            IF FOUND THEN
                outcome := 2;
                swiped_at := (extract(epoch FROM v_created) * 1000000)::int8;
                RETURN;
            END IF;
            IF NOT EXISTS (SELECT 1 FROM discovery.profiles p
                           WHERE p.account_id = p_target AND p.app = p_app AND p.active AND p.admitted
                             AND NOT EXISTS (SELECT 1 FROM discovery.blocks b
                                             WHERE (b.blocker_id = p_target AND b.blocked_id = p_swiper)
                                                OR (b.blocker_id = p_swiper AND b.blocked_id = p_target))) THEN
                outcome := 3;
                RETURN;
            END IF;
            -- The target's like of the swiper that can match (not a quiz answer).
            SELECT s.action INTO liked_back FROM discovery.swipes s
            WHERE s.swiper_id = p_target AND s.target_id = p_swiper AND s.action >= 2 AND NOT s.quiz;
            IF p_action >= 2 THEN
                IF liked_back IS NOT NULL AND NOT p_quiz AND NOT p_match_allowed THEN
                    outcome := 5;
                    RETURN;
                END IF;
                -- The allowance of the like's kind (-1: no limit). Concurrent swipes of one
                -- account queue on its counter row, so the limit holds under any concurrency.
                IF p_limit = 0 THEN
                    outcome := 4;
                    RETURN;
                END IF;
                INSERT INTO discovery.daily_usage AS u (account_id, day, likes, super_likes)
                VALUES (p_swiper, v_day, CASE WHEN p_action = 2 THEN 1 ELSE 0 END, CASE WHEN p_action = 3 THEN 1 ELSE 0 END)
                ON CONFLICT (account_id, day) DO UPDATE
                    SET likes = u.likes + EXCLUDED.likes, super_likes = u.super_likes + EXCLUDED.super_likes
                    WHERE p_limit < 0 OR (p_action = 2 AND u.likes + 1 <= p_limit) OR (p_action = 3 AND u.super_likes + 1 <= p_limit)
                RETURNING u.likes, u.super_likes INTO likes, super_likes;
                IF NOT FOUND THEN
                    outcome := 4;
                    RETURN;
                END IF;
            END IF;
            INSERT INTO discovery.swipes (swiper_id, target_id, app, action, quiz)
            VALUES (p_swiper, p_target, p_app, p_action, p_quiz)
            RETURNING created_at INTO v_created;
            -- The swiper's feed window no longer holds (FeedStamp).
            INSERT INTO discovery.feed_member_versions AS v (account_id, version) VALUES (p_swiper, 1)
            ON CONFLICT (account_id) DO UPDATE SET version = v.version + 1;
            outcome := 1;
            action := p_action;
            swiped_at := (extract(epoch FROM v_created) * 1000000)::int8;
        END $$;
        -- This function is the one writer of swipes: the version it bumps needs no trigger (a
        -- row trigger cost about as much as the rest of the swipe).
        DROP TRIGGER feed_swipe_added ON discovery.swipes;
        DROP FUNCTION discovery.feed_swipe_added();
        """)
}
