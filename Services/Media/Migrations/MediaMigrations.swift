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
        ] + outbox.migrations(from: 3) + [outbox.occurredAtIndexMigration(version: 5), profilePhotos]
    }
}
