import Postgres
import Runtime

/// Schema `media`: uploads in progress, blobs, the event cursor on identity and media's outbox.
enum MediaMigrations {
    static let profilePhotos = Migration(version: 6, name: "profile photos", sql: """
        CREATE TABLE media.accounts (
            account_id uuid PRIMARY KEY,
            app text NOT NULL,
            onboarding_complete boolean NOT NULL DEFAULT false
        );
        CREATE TABLE media.profile_photos (
            account_id uuid NOT NULL,
            blob_id uuid NOT NULL REFERENCES media.blobs (id) ON DELETE CASCADE,
            position integer NOT NULL,
            PRIMARY KEY (account_id, blob_id)
        );
        CREATE INDEX profile_photos_by_blob ON media.profile_photos (blob_id);
        """)

    static let momento = Migration(version: 7, name: "momento events", sql: """
        CREATE TABLE media.events (
            id uuid PRIMARY KEY,
            app text NOT NULL,
            creator_id uuid NOT NULL,
            title text NOT NULL,
            join_code text NOT NULL UNIQUE,
            release_at timestamptz NOT NULL,
            is_private boolean NOT NULL DEFAULT false,
            max_photos_per_member integer NOT NULL,
            location_name text NOT NULL DEFAULT '',
            latitude double precision NOT NULL DEFAULT 0,
            longitude double precision NOT NULL DEFAULT 0,
            description text NOT NULL DEFAULT '',
            member_count integer NOT NULL DEFAULT 1,
            photo_count integer NOT NULL DEFAULT 0,
            code_views bigint NOT NULL DEFAULT 0,
            code_joins bigint NOT NULL DEFAULT 0,
            revealed_at timestamptz,
            created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX events_due ON media.events (release_at) WHERE revealed_at IS NULL;
        CREATE INDEX events_by_creator ON media.events (creator_id);
        CREATE TABLE media.event_members (
            event_id uuid NOT NULL REFERENCES media.events (id) ON DELETE CASCADE,
            account_id uuid NOT NULL,
            role smallint NOT NULL,
            invited_by uuid,
            photo_count integer NOT NULL DEFAULT 0,
            joined_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (event_id, account_id)
        );
        CREATE INDEX event_members_by_account ON media.event_members (account_id);
        CREATE TABLE media.event_photos (
            id uuid PRIMARY KEY,
            event_id uuid NOT NULL REFERENCES media.events (id) ON DELETE CASCADE,
            account_id uuid NOT NULL,
            blob_id uuid NOT NULL REFERENCES media.blobs (id) ON DELETE CASCADE,
            added_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (event_id, blob_id)
        );
        CREATE INDEX event_photos_in_order ON media.event_photos (event_id, added_at, id);
        CREATE INDEX event_photos_by_account ON media.event_photos (account_id);
        CREATE INDEX event_photos_by_blob ON media.event_photos (blob_id);
        """)

    /// One row per photo content (not per blob: the same bytes uploaded twice are rendered once);
    /// status 1 pending, 2 ready, 3 failed. Photos stored before this get rows here, so the job
    /// renders them too.
    static let renditions = Migration(version: 8, name: "photo renditions", sql: """
        CREATE TABLE media.renditions (
            sha256 text PRIMARY KEY,
            content_type text NOT NULL,
            status smallint NOT NULL DEFAULT 1,
            -- Why it failed, for operators.
            failure text,
            -- Claims so far: 1 for a content rendered once.
            attempts integer NOT NULL DEFAULT 0,
            lease_id uuid,
            lease_until timestamptz,
            created_at timestamptz NOT NULL DEFAULT now(),
            ready_at timestamptz
        );
        CREATE INDEX renditions_pending ON media.renditions (created_at) WHERE status = 1;
        CREATE TABLE media.rendition_files (
            sha256 text NOT NULL REFERENCES media.renditions (sha256) ON DELETE CASCADE,
            -- 0 for full size, else the thumbnail's long side.
            side integer NOT NULL,
            content_type text NOT NULL,
            size bigint NOT NULL,
            width integer NOT NULL,
            height integer NOT NULL,
            key text NOT NULL,
            PRIMARY KEY (sha256, side)
        );
        INSERT INTO media.renditions (sha256, content_type)
        SELECT DISTINCT ON (sha256) sha256, content_type FROM media.blobs WHERE kind = 1 ORDER BY sha256, created_at;
        """)

    static func all() throws -> [Migration] {
        let outbox = try Outbox(schema: "media")
        return [
            Migration(version: 1, name: "uploads and blobs", sql: """
                CREATE TABLE media.blobs (
                    id uuid PRIMARY KEY,
                    app text NOT NULL,
                    owner_id uuid NOT NULL,
                    kind smallint NOT NULL,
                    content_type text NOT NULL,
                    size bigint NOT NULL,
                    sha256 text NOT NULL,
                    width integer NOT NULL DEFAULT 0,
                    height integer NOT NULL DEFAULT 0,
                    created_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE INDEX blobs_by_owner ON media.blobs (owner_id);
                CREATE INDEX blobs_by_sha256 ON media.blobs (sha256);
                CREATE TABLE media.uploads (
                    id uuid PRIMARY KEY,
                    app text NOT NULL,
                    owner_id uuid NOT NULL,
                    kind smallint NOT NULL,
                    content_type text NOT NULL,
                    size bigint NOT NULL CHECK (size > 0),
                    blob_id uuid REFERENCES media.blobs (id) ON DELETE CASCADE,
                    -- One writer at a time: a stream holds the lease while it writes.
                    lease_until timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    expires_at timestamptz NOT NULL DEFAULT now() + interval '1 day'
                );
                CREATE INDEX uploads_by_owner ON media.uploads (owner_id);
                """),
            Migration(version: 2, name: "event cursors", sql: EventConsumer.ddl(schema: "media")),
        ] + outbox.migrations(from: 3) + [outbox.occurredAtIndexMigration(version: 5), profilePhotos, momento, renditions,
                                            outbox.traceContextMigration(version: 9)]
    }
}
