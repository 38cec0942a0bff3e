import Postgres
import Runtime

/// Schema `messaging`: conversations (one per match, from discovery's events), their members'
/// read markers, messages, the blocks identity reported, the event cursors of the streams
/// followed, the realtime outbox each user's stream is served from, The Unseen's encounters and
/// the outbox other services follow (encounter awards), push's tables, and video calls.
enum MessagingMigrations {
    static func all() throws -> [Migration] {
        let realtime = try RealtimeFeed.outbox()
        let events = try Outbox(schema: "messaging")
        return [
            Migration(version: 1, name: "conversations and messages", sql: """
                CREATE TABLE messaging.conversations (
                    id uuid PRIMARY KEY,
                    app text NOT NULL,
                    matched_at timestamptz NOT NULL,
                    super_like boolean NOT NULL DEFAULT false,
                    closed_at timestamptz,
                    close_reason smallint NOT NULL DEFAULT 0,
                    last_sequence bigint NOT NULL DEFAULT 0,
                    last_activity_at timestamptz NOT NULL
                );
                CREATE TABLE messaging.members (
                    account_id uuid NOT NULL,
                    conversation_id uuid NOT NULL REFERENCES messaging.conversations (id) ON DELETE CASCADE,
                    other_id uuid NOT NULL,
                    read_through bigint NOT NULL DEFAULT 0,
                    PRIMARY KEY (account_id, conversation_id)
                );
                CREATE INDEX members_by_conversation ON messaging.members (conversation_id);
                CREATE TABLE messaging.messages (
                    id uuid PRIMARY KEY,
                    conversation_id uuid NOT NULL REFERENCES messaging.conversations (id) ON DELETE CASCADE,
                    sequence bigint NOT NULL,
                    sender_id uuid NOT NULL,
                    client_message_id text NOT NULL,
                    text text,
                    media_id uuid,
                    sent_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    CHECK ((text IS NULL) <> (media_id IS NULL)),
                    UNIQUE (conversation_id, sequence),
                    UNIQUE (conversation_id, sender_id, client_message_id)
                );
                CREATE TABLE messaging.blocks (
                    blocker_id uuid NOT NULL,
                    blocked_id uuid NOT NULL,
                    PRIMARY KEY (blocker_id, blocked_id)
                );
                """),
            Migration(version: 2, name: "event cursors", sql: EventConsumer.ddl(schema: "messaging")),
        ] + realtime.migrations(from: 3) + [
            Migration(version: 5, name: "realtime by recipient", sql: """
                CREATE INDEX realtime_by_recipient ON messaging.realtime (aggregate_id, cursor);
                """),
            Migration(version: 6, name: "realtime retention", sql: """
                CREATE INDEX realtime_by_occurred_at ON messaging.realtime (occurred_at);
                CREATE TABLE messaging.realtime_retention (
                    id integer PRIMARY KEY CHECK (id = 1),
                    -- The highest cursor pruned: a stream cannot resume from below it.
                    pruned_through bigint NOT NULL DEFAULT 0
                );
                INSERT INTO messaging.realtime_retention (id) VALUES (1);
                """),
            Migration(version: 7, name: "icebreakers", sql: """
                CREATE TABLE messaging.member_tastes (
                    account_id uuid PRIMARY KEY,
                    cuisines text[] NOT NULL DEFAULT '{}'
                );
                CREATE TABLE messaging.icebreakers (
                    conversation_id uuid PRIMARY KEY REFERENCES messaging.conversations (id) ON DELETE CASCADE,
                    starters text[] NOT NULL,
                    source text NOT NULL,
                    generated_at timestamptz NOT NULL DEFAULT now()
                );
                """),
            Migration(version: 8, name: "encounters", sql: EncounterMigration.sql),
        ] + events.migrations(from: 9) + [events.occurredAtIndexMigration(version: 11)] + PushMigrations.migrations(from: 12)
            + [icebreakerGeneration, CallMigration.migration(version: 15), pushTypes, EncounterMigration.meaningfulAnnounced,
               SendMessagesMigration.migration(version: 18), PushMigrations.restoreHorizon(version: 19),
               realtime.traceContextMigration(version: 20), events.traceContextMigration(version: 21),
               PushMigrations.traceContext(version: 22), exportIndexes]
    }

    /// Any member may ask for their export (`ExportMyData`) at any time: each of its sections
    /// finds the member's rows by an index instead of reading the table whole
    /// (PersonalDataIndexTests holds every section to that). Calls by caller and by callee,
    /// ended ones too, replace the indexes of live calls alone (a call still updates one index
    /// of each). On a large database, build them first (compose/SCALING.md §6).
    static let exportIndexes = Migration(version: 23, name: "personal data export by index", sql: """
        CREATE INDEX IF NOT EXISTS calls_by_caller ON messaging.calls (caller_id);
        CREATE INDEX IF NOT EXISTS calls_by_callee ON messaging.calls (callee_id);
        DROP INDEX IF EXISTS messaging.calls_live_by_caller;
        DROP INDEX IF EXISTS messaging.calls_live_by_callee;
        CREATE INDEX IF NOT EXISTS call_signals_by_sender ON messaging.call_signals (sender_id);
        CREATE INDEX IF NOT EXISTS encounter_awards_by_account ON messaging.encounter_awards (account_id);
        CREATE INDEX IF NOT EXISTS push_jobs_by_account ON messaging.push_jobs (account_id);
        """)

    /// A job's APNs push type: "voip" (an incoming call, to the recipient's PushKit tokens when
    /// they have any) or "alert".
    static let pushTypes = Migration(version: 16, name: "push types", sql: """
        ALTER TABLE messaging.push_jobs ADD COLUMN push_type text NOT NULL DEFAULT 'alert'
            CHECK (push_type IN ('alert', 'voip'));
        """)

    /// The generator's state per match: 0 not asked (no generator configured), 1 pending,
    /// 2 answered, 3 fell back to the pool (the failure kept); a lease while an instance asks.
    static let icebreakerGeneration = Migration(version: 14, name: "icebreaker generation", sql: """
        ALTER TABLE messaging.icebreakers ADD COLUMN generation smallint NOT NULL DEFAULT 0,
            ADD COLUMN lease_until timestamptz, ADD COLUMN attempted_at timestamptz,
            ADD COLUMN failure text NOT NULL DEFAULT '';
        CREATE INDEX icebreakers_pending ON messaging.icebreakers (generated_at) WHERE generation = 1;
        """)
}
