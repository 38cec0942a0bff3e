import Postgres

/// Messaging's calls (calls.proto): one row per call with its state, deadlines and each side's
/// attachment, and the signals (SDP, ICE) relayed between the sides, in order, until the call
/// ends. Deadlines are compared with the database's clock.
enum CallMigration {
    static func migration(version: Int) -> Migration {
        Migration(version: version, name: "calls", sql: """
            CREATE TABLE messaging.calls (
                id uuid PRIMARY KEY,
                conversation_id uuid NOT NULL REFERENCES messaging.conversations (id) ON DELETE CASCADE,
                app text NOT NULL,
                caller_id uuid NOT NULL,
                callee_id uuid NOT NULL,
                -- calls.proto CallState: 1 ringing, 2 accepted, 3 ended, 4 declined, 5 missed, 6 cancelled
                state smallint NOT NULL DEFAULT 1 CHECK (state BETWEEN 1 AND 6),
                created_at timestamptz NOT NULL DEFAULT now(),
                ring_deadline timestamptz NOT NULL,
                accepted_at timestamptz,
                ended_at timestamptz,
                ended_by uuid,
                -- Signals stored so far (the last one's sequence).
                signals integer NOT NULL DEFAULT 0,
                -- Per side: the stream attached (a CallJoin takes the side over), until when the
                -- side counts as present (refreshed while attached; the grace after a drop), and
                -- the sequence of the last signal of the other side it was sent.
                caller_stream uuid,
                caller_alive_until timestamptz,
                caller_read_through integer NOT NULL DEFAULT 0,
                callee_stream uuid,
                callee_alive_until timestamptz,
                callee_read_through integer NOT NULL DEFAULT 0,
                CHECK (caller_id <> callee_id)
            );
            -- One live call per conversation; the sweep's and the busy checks' candidates.
            CREATE UNIQUE INDEX calls_live_per_conversation ON messaging.calls (conversation_id) WHERE state IN (1, 2);
            CREATE INDEX calls_live_by_caller ON messaging.calls (caller_id) WHERE state IN (1, 2);
            CREATE INDEX calls_live_by_callee ON messaging.calls (callee_id) WHERE state IN (1, 2);
            CREATE TABLE messaging.call_signals (
                call_id uuid NOT NULL REFERENCES messaging.calls (id) ON DELETE CASCADE,
                sequence integer NOT NULL,
                sender_id uuid NOT NULL,
                -- calls.proto SignalResponse with the signal set (sequence unset).
                payload bytea NOT NULL,
                sent_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (call_id, sequence)
            );
            """)
    }
}
