import Postgres

/// `messaging.send_messages`: a batch of sends (`GroupCommitQueue`) in one statement, each
/// judged exactly as one `SendMessage` alone would be.
///
/// Before it a send was three round trips holding its conversation's lock (lock and look up
/// the key; insert; the realtime rows with COMMIT), and every send its own transaction, so its
/// own WAL flush. Here concurrent sends share one transaction of one statement, realtime rows
/// included (`MessageSendStore`). It takes the sends in the order given: a conversation's sends
/// are numbered in that order, and a client message id sent twice in one batch finds the first.
///
/// Locks, all before the first write: an advisory lock per conversation of the batch (in key
/// order, so batches side by side never deadlock), then the conversations' rows (as the other
/// writers of a conversation take them). The advisory locks come first because they give the
/// transaction no id: a stream delivers in outbox cursor order, which is transaction id order
/// (`Outbox`), and a batch that took its id (with its first row lock) and then waited for a
/// younger batch holding another of its conversations would number its messages after that
/// batch's yet deliver them before (seen in SendBatchingTests). Taking its id only once it holds
/// every conversation, a batch is younger than every batch it waited for. Each statement of a PL/pgSQL function takes a fresh snapshot, so a
/// send that waited for the lock sees what the transaction it waited for committed, as the
/// separate statements did before.
///
/// Outcome per send: 0 stored, 1 no conversation of that app, 2 not a participant, 3 closed,
/// 4 replay (the row is the earlier message). Checked in that order but for the replay, which
/// precedes the closed check, as before.
enum SendMessagesMigration {
    static let stored: Int16 = 0
    static let conversationNotFound: Int16 = 1
    static let notAParticipant: Int16 = 2
    static let closed: Int16 = 3
    static let replayed: Int16 = 4

    static func migration(version: Int) -> Migration {
        Migration(version: version, name: "batched sends", sql: """
            CREATE FUNCTION messaging.send_messages(
                p_ids uuid[], p_conversations uuid[], p_senders uuid[], p_apps text[], p_keys text[],
                p_texts text[], p_media uuid[])
            RETURNS TABLE (r_ordinal int, r_outcome smallint, r_other uuid, r_id uuid, r_sequence bigint, r_text text,
                           r_media uuid, r_sent_at bigint)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_app text;
                v_closed boolean;
                v_at timestamptz;
            BEGIN
                PERFORM pg_advisory_xact_lock(k.key) FROM (
                    SELECT DISTINCT hashtextextended('messaging.send:' || c::text, 0) AS key FROM unnest(p_conversations) c
                    ORDER BY 1) k;
                PERFORM 1 FROM messaging.conversations c WHERE c.id = ANY (p_conversations) ORDER BY c.id FOR UPDATE;
                FOR i IN 1 .. coalesce(cardinality(p_ids), 0) LOOP
                    r_ordinal := i; r_other := NULL; r_id := NULL; r_sequence := NULL; r_text := NULL; r_media := NULL; r_sent_at := NULL;
                    SELECT c.app, c.closed_at IS NOT NULL, m.other_id INTO v_app, v_closed, r_other
                    FROM messaging.conversations c
                    LEFT JOIN messaging.members m ON m.conversation_id = c.id AND m.account_id = p_senders[i]
                    WHERE c.id = p_conversations[i];
                    IF NOT FOUND OR v_app <> p_apps[i] THEN
                        r_outcome := 1; r_other := NULL;
                    ELSIF r_other IS NULL THEN
                        r_outcome := 2;
                    ELSE
                        SELECT x.id, x.sequence, x.text, x.media_id, (extract(epoch FROM x.sent_at) * 1000000)::int8
                        INTO r_id, r_sequence, r_text, r_media, r_sent_at
                        FROM messaging.messages x
                        WHERE x.conversation_id = p_conversations[i] AND x.sender_id = p_senders[i]
                          AND x.client_message_id = p_keys[i];
                        IF FOUND THEN
                            r_outcome := 4;
                        ELSIF v_closed THEN
                            r_outcome := 3;
                        ELSE
                            UPDATE messaging.conversations c
                            SET last_sequence = c.last_sequence + 1, last_activity_at = clock_timestamp()
                            WHERE c.id = p_conversations[i]
                            RETURNING c.last_sequence, c.last_activity_at INTO r_sequence, v_at;
                            INSERT INTO messaging.messages (id, conversation_id, sequence, sender_id, client_message_id,
                                                            text, media_id, sent_at)
                            VALUES (p_ids[i], p_conversations[i], r_sequence, p_senders[i], p_keys[i], p_texts[i],
                                    p_media[i], v_at);
                            r_outcome := 0; r_id := p_ids[i]; r_text := p_texts[i]; r_media := p_media[i];
                            r_sent_at := (extract(epoch FROM v_at) * 1000000)::int8;
                        END IF;
                    END IF;
                    RETURN NEXT;
                END LOOP;
            END
            $$;

            -- Protobuf's varint of a non-negative value.
            CREATE FUNCTION messaging.protobuf_varint(p_value bigint) RETURNS bytea
            LANGUAGE plpgsql IMMUTABLE STRICT AS $$
            DECLARE
                v_encoded bytea := '';
                v_rest bigint := p_value;
            BEGIN
                WHILE v_rest >= 128 LOOP
                    v_encoded := v_encoded || substr(int4send(((v_rest & 127) | 128)::int), 4);
                    v_rest := v_rest >> 7;
                END LOOP;
                RETURN v_encoded || substr(int4send(v_rest::int), 4);
            END
            $$;

            -- The fields of a stored message only the database knows, as the tail of its
            -- realtime event: RealtimeEvent.message (4) { MessageReceived.message (1) {
            -- Message.sequence (5), Message.sent_at (8) { seconds (1), nanos (2) } } }. Protobuf
            -- merges a repeated embedded message field into the one before it, so the event
            -- encoded without them (by the service) followed by this decodes as the whole event.
            CREATE FUNCTION messaging.realtime_message_tail(p_sequence bigint, p_sent_at bigint) RETURNS bytea
            LANGUAGE plpgsql IMMUTABLE STRICT AS $$
            DECLARE
                v_stamp bytea := substr(int4send(8), 4) || messaging.protobuf_varint(p_sent_at / 1000000)
                    || substr(int4send(16), 4) || messaging.protobuf_varint(p_sent_at % 1000000 * 1000);
                v_message bytea := substr(int4send(40), 4) || messaging.protobuf_varint(p_sequence)
                    || substr(int4send(66), 4) || messaging.protobuf_varint(length(v_stamp)) || v_stamp;
                v_received bytea := substr(int4send(10), 4) || messaging.protobuf_varint(length(v_message)) || v_message;
            BEGIN
                RETURN substr(int4send(34), 4) || messaging.protobuf_varint(length(v_received)) || v_received;
            END
            $$;
            """)
    }
}
