import Postgres

/// Migration 8 of `messaging`: encounters (one row each, deadlines kept in the row and compared
/// with the database's clock), the awards already written to the outbox (each once), and the
/// seeded catalogue of Level-1 prompts.
enum EncounterMigration {
    static let sql = """
        CREATE TABLE messaging.encounters (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            starter_id uuid NOT NULL,
            joiner_id uuid,
            -- 1 waiting, 2 chatting, 3 proposed, 4 meeting, 5 in person, 6 closing, 7 resolved, 8 ended
            stage smallint NOT NULL DEFAULT 1 CHECK (stage BETWEEN 1 AND 8),
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(),
            started_at timestamptz,
            opening_prompt text,
            starter_messages integer NOT NULL DEFAULT 0 CHECK (starter_messages >= 0),
            joiner_messages integer NOT NULL DEFAULT 0 CHECK (joiner_messages >= 0),
            meaningful_at timestamptz,
            proposer_id uuid,
            accept_deadline timestamptz,
            -- 0 none, 1 accepted, 2 declined, 3 timed out
            outcome smallint NOT NULL DEFAULT 0,
            reflection_prompt text,
            meetup_description text,
            starter_arrived boolean NOT NULL DEFAULT false,
            joiner_arrived boolean NOT NULL DEFAULT false,
            handshake_deadline timestamptz,
            starter_code text,
            joiner_code text,
            in_person_prompt text,
            in_person_ends_at timestamptz,
            starter_artifact text,
            joiner_artifact text,
            artifact text,
            resonance_opens_at timestamptz,
            starter_resonance smallint CHECK (starter_resonance BETWEEN 0 AND 100),
            joiner_resonance smallint CHECK (joiner_resonance BETWEEN 0 AND 100),
            multiplier_granted boolean NOT NULL DEFAULT false,
            CHECK (joiner_id IS NULL OR joiner_id <> starter_id)
        );
        -- The sweep's candidates: encounters with a deadline that may pass.
        CREATE INDEX encounters_with_deadlines ON messaging.encounters (stage) WHERE stage IN (3, 4, 5);
        CREATE INDEX encounters_by_starter ON messaging.encounters (starter_id);
        CREATE INDEX encounters_by_joiner ON messaging.encounters (joiner_id);
        CREATE TABLE messaging.encounter_awards (
            encounter_id uuid NOT NULL REFERENCES messaging.encounters (id) ON DELETE CASCADE,
            account_id uuid NOT NULL,
            -- encounters.proto EncounterAwardReason
            reason smallint NOT NULL,
            awarded_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (encounter_id, account_id, reason)
        );
        CREATE TABLE messaging.encounter_prompts (
            id integer PRIMARY KEY,
            level smallint NOT NULL,
            -- opening (served when the container starts), reflection (after a declined or
            -- timed-out Convergence), in_person (when the handshake is verified)
            kind text NOT NULL CHECK (kind IN ('opening', 'reflection', 'in_person')),
            text text NOT NULL
        );
        INSERT INTO messaging.encounter_prompts (id, level, kind, text) VALUES
            (1, 1, 'opening', 'What brought you out into the world today?'),
            (2, 1, 'opening', 'Describe the last moment that surprised you.'),
            (3, 1, 'opening', 'What is something small you are looking forward to?'),
            (4, 1, 'opening', 'Which place makes you feel most like yourself?'),
            (5, 1, 'reflection', 'What did it feel like to reach out? Name one thing you noticed in your body.'),
            (6, 1, 'reflection', 'Courage is in the asking, not the answer. What did asking teach you about yourself?'),
            (7, 1, 'reflection', 'Write one sentence to the version of you who hesitated before tapping.'),
            (8, 1, 'reflection', 'What would you tell a friend who had just done what you did?'),
            (9, 1, 'in_person', 'Share something you almost said in the chat but did not.'),
            (10, 1, 'in_person', 'What did you imagine about each other, and what is different now?'),
            (11, 1, 'in_person', 'Tell each other about a moment this year that changed your mind.'),
            (12, 1, 'in_person', 'What is one thing you would like to be asked more often?');
        """

    /// Migration 17: whether the `meaningful` step went out, so that the sweep or the first call
    /// after the interaction turns meaningful by the clock tells both sides, once. Encounters past
    /// the chat (or back in it after a Convergence) were meaningful long ago: nothing to tell.
    static let meaningfulAnnounced = Migration(version: 17, name: "encounter meaningful step", sql: """
        ALTER TABLE messaging.encounters ADD COLUMN meaningful_announced boolean NOT NULL DEFAULT false;
        UPDATE messaging.encounters SET meaningful_announced = true WHERE stage > 2 OR outcome <> 0;
        -- The sweep's candidates: chats that may turn meaningful by the clock.
        CREATE INDEX encounters_awaiting_meaningful ON messaging.encounters (meaningful_at)
            WHERE stage = 2 AND NOT meaningful_announced;
        """)
}
