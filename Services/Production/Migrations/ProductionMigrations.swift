import Postgres
import Runtime

/// Schema `production`: FirstDate's casting, seasons and episodes, the consent ritual's texts and
/// immutable records, the money ledger, The Unseen's points ledger, and production's own outbox.
/// The rules the database itself keeps (the consent gate, immutability, one current consent
/// text, one deal income per episode) live here, so no code path can skip them.
enum ProductionMigrations {
    /// SQLSTATE the consent gate raises: scheduling without every cast participant's consent.
    static let consentRequired: SQLState = "RZ001"
    /// SQLSTATE of an update or delete of a consent record or a points entry.
    static let appendOnly: SQLState = "RZ002"

    static func all() throws -> [Migration] {
        let outbox = try Outbox(schema: "production")
        return [casting, appendOnlyGuard, consent, ledger, points] + outbox.migrations(from: 6)
            + [outbox.occurredAtIndexMigration(version: 8), studio,
               Migration(version: 10, name: "event cursors", sql: EventConsumer.ddl(schema: "production")), dates,
               consentTextPerApp, castMembers, outbox.traceContextMigration(version: 14), exportIndexes]
    }

    /// Any member may ask for their export (`ExportMyData`) at any time: each of its sections
    /// finds the member's rows by an index instead of reading the table whole
    /// (PersonalDataIndexTests holds every section to that).
    static let exportIndexes = Migration(version: 15, name: "personal data export by index", sql: """
        CREATE INDEX IF NOT EXISTS applications_by_account ON production.applications (account_id);
        CREATE INDEX IF NOT EXISTS date_reviews_by_reviewer ON production.date_reviews (reviewer_id);
        CREATE INDEX IF NOT EXISTS outfits_by_wearer ON production.outfits (worn_by);
        """)

    static let casting = Migration(version: 1, name: "seasons, episodes and applications", sql: """
        CREATE TABLE production.seasons (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            number integer NOT NULL CHECK (number BETWEEN 1 AND 999),
            title text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (app, number)
        );
        CREATE TABLE production.episodes (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            season_id uuid NOT NULL REFERENCES production.seasons (id),
            number integer NOT NULL CHECK (number BETWEEN 1 AND 99),
            title text NOT NULL,
            -- identified, outreach, negotiation, confirmed (production.proto PitchStage)
            pitch_stage smallint NOT NULL DEFAULT 1 CHECK (pitch_stage BETWEEN 1 AND 4),
            -- planning, casting, scheduled, filmed, editing, published (EpisodeStatus)
            status smallint NOT NULL DEFAULT 1 CHECK (status BETWEEN 1 AND 6),
            sponsor text NOT NULL DEFAULT '',
            deal_value_minor bigint CHECK (deal_value_minor > 0),
            deal_currency text CHECK (deal_currency ~ '^[A-Z]{3}$'),
            behind_the_glass_type smallint NOT NULL DEFAULT 0 CHECK (behind_the_glass_type BETWEEN 0 AND 5),
            behind_the_glass_text text NOT NULL DEFAULT '',
            hook_seconds integer NOT NULL DEFAULT 0 CHECK (hook_seconds >= 0),
            conflict_seconds integer NOT NULL DEFAULT 0 CHECK (conflict_seconds >= 0),
            resolution_seconds integer NOT NULL DEFAULT 0 CHECK (resolution_seconds >= 0),
            view_count bigint NOT NULL DEFAULT 0 CHECK (view_count >= 0),
            like_count bigint NOT NULL DEFAULT 0 CHECK (like_count >= 0),
            comment_count bigint NOT NULL DEFAULT 0 CHECK (comment_count >= 0),
            created_at timestamptz NOT NULL DEFAULT now(),
            published_at timestamptz,
            UNIQUE (season_id, number),
            -- Production only after the deal: casting and beyond need a confirmed pitch.
            CHECK (status = 1 OR pitch_stage = 4),
            CHECK (status < 6 OR behind_the_glass_type > 0)
        );
        CREATE INDEX episodes_published ON production.episodes (app, season_id, number) WHERE status = 6;
        CREATE TABLE production.applications (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            account_id uuid NOT NULL,
            -- draft, pending, reviewing, shortlisted, selected, passed (ApplicationStatus)
            status smallint NOT NULL DEFAULT 1 CHECK (status BETWEEN 1 AND 6),
            steps text[] NOT NULL DEFAULT '{}',
            legal_name text NOT NULL DEFAULT '',
            age integer NOT NULL DEFAULT 0,
            bio text NOT NULL DEFAULT '',
            neighborhood text NOT NULL DEFAULT '',
            why_me text NOT NULL DEFAULT '',
            quiz_questions text[] NOT NULL DEFAULT '{}',
            quiz_answers text[] NOT NULL DEFAULT '{}',
            photo_ids text[] NOT NULL DEFAULT '{}',
            video_selfie_id text NOT NULL DEFAULT '',
            consent_acknowledged boolean NOT NULL DEFAULT false,
            episode_id uuid REFERENCES production.episodes (id),
            created_at timestamptz NOT NULL DEFAULT now(),
            submitted_at timestamptz,
            updated_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (app, account_id),
            CHECK (episode_id IS NULL OR status = 5)
        );
        CREATE INDEX applications_inbox ON production.applications (app, submitted_at DESC, id) WHERE status > 1;
        CREATE INDEX applications_by_episode ON production.applications (episode_id) WHERE episode_id IS NOT NULL;
        """)

    static let appendOnlyGuard = Migration(version: 2, name: "append-only guard", sql: """
        CREATE FUNCTION production.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'points_entries'
               AND current_setting('production.purge', true) = 'on' THEN
                RETURN OLD;
            END IF;
            RAISE EXCEPTION '% rows are append-only: % refused', TG_TABLE_NAME, TG_OP
                USING ERRCODE = '\(appendOnly.rawValue)';
        END $$;
        """)

    static let consent = Migration(version: 3, name: "consent texts, records and the gate", sql: """
        CREATE TABLE production.consent_text_versions (
            version_hash text PRIMARY KEY CHECK (version_hash ~ '^[0-9a-f]{64}$'),
            app text NOT NULL,
            consent_text text NOT NULL,
            effective_from timestamptz NOT NULL DEFAULT now(),
            superseded_at timestamptz
        );
        -- Exactly one current version per app: a second is refused by the database.
        CREATE UNIQUE INDEX consent_text_current ON production.consent_text_versions (app) WHERE superseded_at IS NULL;
        CREATE TABLE production.consent_records (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            episode_id uuid NOT NULL REFERENCES production.episodes (id),
            participant_id uuid NOT NULL,
            -- signed, revocation (ConsentRecordType)
            record_type smallint NOT NULL CHECK (record_type IN (1, 2)),
            typed_name text NOT NULL,
            signature_media_id text NOT NULL DEFAULT '',
            consent_text_version text NOT NULL REFERENCES production.consent_text_versions (version_hash),
            device_info text NOT NULL DEFAULT '',
            captured_by uuid NOT NULL,
            created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
            seq bigint GENERATED ALWAYS AS IDENTITY,
            CHECK (record_type = 2 OR (typed_name <> '' AND signature_media_id <> ''))
        );
        CREATE INDEX consent_records_by_episode ON production.consent_records (episode_id, participant_id, seq);
        CREATE INDEX consent_records_by_participant ON production.consent_records (participant_id, seq);
        CREATE TRIGGER consent_records_append_only BEFORE UPDATE OR DELETE ON production.consent_records
            FOR EACH ROW EXECUTE FUNCTION production.refuse_change();
        CREATE TRIGGER consent_records_no_truncate BEFORE TRUNCATE ON production.consent_records
            FOR EACH STATEMENT EXECUTE FUNCTION production.refuse_change();

        -- The consent gate (seed 000 section 8), in the database: an episode becomes scheduled
        -- only when it has at least one standing consent and every cast participant has one
        -- (their latest record for the episode is a signature, not a revocation).
        CREATE FUNCTION production.enforce_consent_gate() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            standing integer;
            missing integer;
        BEGIN
            WITH latest AS (
                SELECT DISTINCT ON (participant_id) participant_id, record_type
                FROM production.consent_records WHERE episode_id = NEW.id
                ORDER BY participant_id, seq DESC
            )
            SELECT count(*) FILTER (WHERE record_type = 1) INTO standing FROM latest;
            SELECT count(*) INTO missing FROM production.applications a
            WHERE a.episode_id = NEW.id AND NOT EXISTS (
                SELECT 1 FROM (
                    SELECT record_type FROM production.consent_records r
                    WHERE r.episode_id = NEW.id AND r.participant_id = a.account_id
                    ORDER BY seq DESC LIMIT 1
                ) last WHERE last.record_type = 1);
            IF standing = 0 OR missing > 0 THEN
                RAISE EXCEPTION 'episode % cannot be scheduled without signed consent (% cast without it)', NEW.id, missing
                    USING ERRCODE = '\(consentRequired.rawValue)';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER episodes_consent_gate BEFORE UPDATE OF status ON production.episodes
            FOR EACH ROW WHEN (NEW.status = 3 AND OLD.status <> 3)
            EXECUTE FUNCTION production.enforce_consent_gate();
        """)

    static let ledger = Migration(version: 4, name: "money ledger", sql: """
        CREATE TABLE production.ledger_entries (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            -- income, expense (EntryType)
            entry_type smallint NOT NULL CHECK (entry_type IN (1, 2)),
            category text NOT NULL,
            amount_minor bigint NOT NULL CHECK (amount_minor > 0),
            currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
            season_id uuid REFERENCES production.seasons (id),
            episode_id uuid REFERENCES production.episodes (id),
            receipt_media_id text NOT NULL DEFAULT '',
            description text NOT NULL DEFAULT '',
            recorded_by uuid,
            -- 'manual', or 'deal' for the income a confirmed deal posts (once per episode)
            source text NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'deal')),
            created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX ledger_by_app ON production.ledger_entries (app, created_at DESC, id);
        CREATE INDEX ledger_by_season ON production.ledger_entries (season_id, created_at DESC, id);
        CREATE INDEX ledger_by_episode ON production.ledger_entries (episode_id, created_at DESC, id);
        CREATE UNIQUE INDEX ledger_one_deal_income ON production.ledger_entries (episode_id) WHERE source = 'deal';
        """)

    /// Restaurants (seeded), each episode's shoot and studio checklist flags, wardrobe and outfits.
    static let studio = Migration(version: 9, name: "restaurants, shoots, wardrobe", sql: """
        CREATE TABLE production.restaurants (
            id text PRIMARY KEY,
            app text NOT NULL,
            name text NOT NULL,
            cuisine text NOT NULL,
            vibe text NOT NULL DEFAULT '',
            neighborhood text NOT NULL,
            location geography(Point, 4326),
            photo_url text NOT NULL DEFAULT '',
            filming_notes text NOT NULL DEFAULT '',
            active boolean NOT NULL DEFAULT true,
            position integer NOT NULL DEFAULT 0
        );
        CREATE INDEX restaurants_by_app ON production.restaurants (app, neighborhood) WHERE active;
        \(RestaurantCatalog.seedSQL())
        ALTER TABLE production.episodes
            ADD COLUMN restaurant_id text REFERENCES production.restaurants (id),
            ADD COLUMN restaurant_confirmed boolean NOT NULL DEFAULT false,
            ADD COLUMN shoot_starts_at timestamptz,
            ADD COLUMN shoot_minutes integer CHECK (shoot_minutes BETWEEN 15 AND 720),
            ADD COLUMN equipment_packed boolean NOT NULL DEFAULT false;
        CREATE INDEX episodes_shoots ON production.episodes (app, shoot_starts_at) WHERE shoot_starts_at IS NOT NULL;
        CREATE TABLE production.wardrobe_items (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            name text NOT NULL,
            category text NOT NULL,
            cost_minor bigint NOT NULL CHECK (cost_minor >= 0),
            currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
            sponsor text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX wardrobe_by_app ON production.wardrobe_items (app, created_at);
        CREATE TABLE production.outfits (
            id uuid PRIMARY KEY,
            episode_id uuid NOT NULL REFERENCES production.episodes (id),
            item_id uuid NOT NULL REFERENCES production.wardrobe_items (id),
            worn_by uuid NOT NULL,
            notes text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (episode_id, item_id, worn_by)
        );
        """)

    /// Discovery's matches (projected from its events), dates and their reviews, content scripts.
    static let dates = Migration(version: 11, name: "matches, dates, reviews, content scripts", sql: """
        CREATE TABLE production.matches (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            account_ids uuid[] NOT NULL CHECK (cardinality(account_ids) = 2),
            matched_at timestamptz NOT NULL,
            ended_at timestamptz
        );
        CREATE INDEX matches_by_account ON production.matches USING gin (account_ids);
        CREATE TABLE production.dates (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            match_id uuid NOT NULL REFERENCES production.matches (id) ON DELETE CASCADE,
            account_ids uuid[] NOT NULL,
            proposed_by uuid NOT NULL,
            restaurant_id text NOT NULL REFERENCES production.restaurants (id),
            scheduled_at timestamptz NOT NULL,
            -- proposed, confirmed, completed, cancelled (DateStatus)
            status smallint NOT NULL DEFAULT 1 CHECK (status BETWEEN 1 AND 4),
            created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX dates_by_match ON production.dates (match_id, created_at DESC);
        CREATE INDEX dates_by_account ON production.dates USING gin (account_ids);
        CREATE TABLE production.date_reviews (
            date_id uuid NOT NULL REFERENCES production.dates (id) ON DELETE CASCADE,
            reviewer_id uuid NOT NULL,
            vibe_tags text[] NOT NULL,
            would_meet_again boolean NOT NULL,
            note text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (date_id, reviewer_id)
        );
        CREATE TABLE production.content_scripts (
            id uuid PRIMARY KEY,
            episode_id uuid NOT NULL REFERENCES production.episodes (id),
            platform smallint NOT NULL CHECK (platform BETWEEN 1 AND 3),
            hook text NOT NULL DEFAULT '',
            build text NOT NULL DEFAULT '',
            payoff text NOT NULL DEFAULT '',
            cta text NOT NULL DEFAULT '',
            generated_by text NOT NULL CHECK (generated_by IN ('template', 'manual')),
            is_final boolean NOT NULL DEFAULT false,
            source_date_ids uuid[] NOT NULL DEFAULT '{}',
            updated_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (episode_id, platform)
        );
        """)

    /// A consent text's version is its hash within its app: two apps may adopt the same text.
    static let consentTextPerApp = Migration(version: 12, name: "consent text versions per app", sql: """
        ALTER TABLE production.consent_records DROP CONSTRAINT consent_records_consent_text_version_fkey;
        ALTER TABLE production.consent_text_versions DROP CONSTRAINT consent_text_versions_pkey,
            ADD PRIMARY KEY (app, version_hash);
        ALTER TABLE production.consent_records ADD FOREIGN KEY (app, consent_text_version)
            REFERENCES production.consent_text_versions (app, version_hash);
        """)

    /// The cast of each episode in a table of its own: a recurring cast member appears in several
    /// episodes (and the calendar must keep them from being in two shoots at once). The consent
    /// gate reads it.
    static let castMembers = Migration(version: 13, name: "cast members", sql: """
        CREATE TABLE production.cast_members (
            episode_id uuid NOT NULL REFERENCES production.episodes (id),
            account_id uuid NOT NULL,
            application_id uuid NOT NULL REFERENCES production.applications (id) ON DELETE CASCADE,
            cast_at timestamptz NOT NULL DEFAULT clock_timestamp(),
            PRIMARY KEY (episode_id, account_id)
        );
        CREATE INDEX cast_members_by_account ON production.cast_members (account_id);
        CREATE INDEX cast_members_by_application ON production.cast_members (application_id);
        INSERT INTO production.cast_members (episode_id, account_id, application_id)
            SELECT episode_id, account_id, id FROM production.applications WHERE episode_id IS NOT NULL;
        ALTER TABLE production.applications DROP COLUMN episode_id;
        CREATE OR REPLACE FUNCTION production.enforce_consent_gate() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            standing integer;
            missing integer;
        BEGIN
            WITH latest AS (
                SELECT DISTINCT ON (participant_id) participant_id, record_type
                FROM production.consent_records WHERE episode_id = NEW.id
                ORDER BY participant_id, seq DESC
            )
            SELECT count(*) FILTER (WHERE record_type = 1) INTO standing FROM latest;
            SELECT count(*) INTO missing FROM production.cast_members c
            WHERE c.episode_id = NEW.id AND NOT EXISTS (
                SELECT 1 FROM (
                    SELECT record_type FROM production.consent_records r
                    WHERE r.episode_id = NEW.id AND r.participant_id = c.account_id
                    ORDER BY seq DESC LIMIT 1
                ) last WHERE last.record_type = 1);
            IF standing = 0 OR missing > 0 THEN
                RAISE EXCEPTION 'episode % cannot be scheduled without signed consent (% cast without it)', NEW.id, missing
                    USING ERRCODE = '\(consentRequired.rawValue)';
            END IF;
            RETURN NEW;
        END $$;
        """)

    static let points = Migration(version: 5, name: "points ledger", sql: """
        CREATE TABLE production.points_entries (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            account_id uuid NOT NULL,
            encounter_id text NOT NULL,
            -- connection bonus, courage, session completion, resonance multiplier (PointsReason)
            reason smallint NOT NULL CHECK (reason BETWEEN 1 AND 4),
            points bigint NOT NULL CHECK (points > 0),
            awarded_by text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (account_id, encounter_id, reason)
        );
        CREATE INDEX points_by_account ON production.points_entries (account_id, created_at DESC, id);
        CREATE TRIGGER points_entries_append_only BEFORE UPDATE OR DELETE ON production.points_entries
            FOR EACH ROW EXECUTE FUNCTION production.refuse_change();
        """)
}
