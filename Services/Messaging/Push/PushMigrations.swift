import Postgres
import Runtime

/// Push's tables in schema `messaging`: preferences, the durable job queue (filled in the
/// transaction of the event that causes the push, worked under row leases) and the delivery log
/// (a token's last 8 characters and its SHA-256, never the token).
enum PushMigrations {
    /// Push's migrations, numbered from `first`.
    static func migrations(from first: Int) -> [Migration] {
        [tables(version: first), Migration(version: first + 1, name: "push log retention", sql: """
            CREATE INDEX push_deliveries_by_sent_at ON messaging.push_deliveries (sent_at);
            """)]
    }

    /// The restore horizon. A cluster restored to a point in time T (`db.sh restore`) lost every
    /// write after T, the push log's included: the jobs pending at T and the events of the last
    /// minutes before T were, in the lost timeline, most likely pushed already. `db.sh restore`
    /// calls `messaging.restored_to(T)`, which finishes the pending jobs unsent and records T;
    /// the planner plans no push for an event that occurred at or before it (`PushHorizon`).
    /// A push missed is better than the same push twice.
    static func restoreHorizon(version: Int) -> Migration {
        Migration(version: version, name: "push restore horizon", sql: """
            CREATE TABLE messaging.push_horizon (
                only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                not_before timestamptz NOT NULL
            );
            CREATE FUNCTION messaging.restored_to(target timestamptz) RETURNS void LANGUAGE sql AS $$
                INSERT INTO messaging.push_horizon (not_before) VALUES (target)
                ON CONFLICT (only_row) DO UPDATE
                    SET not_before = greatest(messaging.push_horizon.not_before, excluded.not_before);
                UPDATE messaging.push_jobs SET done_at = now() WHERE done_at IS NULL AND created_at <= target;
            $$;
            """)
    }

    /// The W3C Trace Context of the span that planned each job (`EventSpan`), NULL when its
    /// trace was not sampled: the worker's span continues that trace.
    static func traceContext(version: Int) -> Migration {
        Migration(version: version, name: "push trace context", sql: """
            ALTER TABLE messaging.push_jobs ADD COLUMN traceparent text, ADD COLUMN tracestate text;
            """)
    }

    private static func tables(version: Int) -> Migration {
        Migration(version: version, name: "push", sql: """
            CREATE TABLE messaging.push_categories (
                account_id uuid NOT NULL,
                category smallint NOT NULL,
                enabled boolean NOT NULL,
                PRIMARY KEY (account_id, category)
            );
            CREATE TABLE messaging.push_quiet_hours (
                account_id uuid PRIMARY KEY,
                start_minute integer NOT NULL CHECK (start_minute BETWEEN 0 AND 1439),
                end_minute integer NOT NULL CHECK (end_minute BETWEEN 0 AND 1439),
                utc_offset_minutes integer NOT NULL CHECK (utc_offset_minutes BETWEEN -840 AND 840)
            );
            CREATE TABLE messaging.push_jobs (
                id bigserial PRIMARY KEY,
                -- The event that caused it (stream and cursor), once per recipient.
                source text NOT NULL,
                account_id uuid NOT NULL,
                app text NOT NULL,
                category smallint NOT NULL,
                -- The message, match or session the push is about.
                reference text NOT NULL,
                payload bytea NOT NULL,
                collapse_id text,
                priority smallint NOT NULL,
                expires_at timestamptz NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                -- Not before then: a lease held by an instance, or a retry's backoff.
                available_at timestamptz NOT NULL DEFAULT now(),
                leases integer NOT NULL DEFAULT 0,
                done_at timestamptz,
                UNIQUE (source, account_id)
            );
            CREATE INDEX push_jobs_pending ON messaging.push_jobs (available_at, id) WHERE done_at IS NULL;
            CREATE INDEX push_jobs_done ON messaging.push_jobs (done_at) WHERE done_at IS NOT NULL;
            CREATE TABLE messaging.push_deliveries (
                id bigserial PRIMARY KEY,
                job_id bigint NOT NULL,
                account_id uuid NOT NULL,
                app text NOT NULL,
                category smallint NOT NULL,
                token_suffix text NOT NULL,
                token_sha256 bytea NOT NULL,
                environment text NOT NULL,
                -- delivered, unregistered, bad_token, failed, rejected
                status text NOT NULL,
                http_status integer NOT NULL,
                reason text,
                attempts integer NOT NULL,
                apns_id text,
                sent_at timestamptz NOT NULL DEFAULT now(),
                UNIQUE (job_id, token_sha256)
            );
            CREATE INDEX push_deliveries_by_account ON messaging.push_deliveries (account_id, sent_at);
            """)
    }
}
