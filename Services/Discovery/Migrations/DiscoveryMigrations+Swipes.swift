import Postgres

extension DiscoveryMigrations {
    /// Swipes written by releases from before migration 16 bump the swiper's feed version again.
    /// Those releases insert swipes themselves and leave the bump to migration 15's trigger,
    /// which migration 16 dropped: while one ran beside a newer release (a rollout, a rollback),
    /// its swipes left the swiper's cached feed windows holding, on every instance, so the feed
    /// showed again the cards just swiped (`EndToEndUpgradeTests`). The trigger is back for every
    /// writer but `discovery.swipe`, which bumps the version itself and marks its transaction
    /// (`discovery.swipe_writer`), so its swipes still cost no trigger call. Dropping the trigger
    /// is a contract step (compose/SCALING.md §6), for when no release before 16 runs.
    static let olderSwipeWriters = Migration(version: 17, name: "feed version of older releases' swipes", sql: """
        CREATE FUNCTION discovery.feed_swipe_added() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM discovery.bump_feed_members(ARRAY[NEW.swiper_id]);
            RETURN NULL;
        END $$;
        CREATE TRIGGER feed_swipe_added AFTER INSERT ON discovery.swipes FOR EACH ROW
            WHEN (current_setting('discovery.swipe_writer', true) IS DISTINCT FROM 'function')
            EXECUTE FUNCTION discovery.feed_swipe_added();
        CREATE OR REPLACE FUNCTION discovery.swipe(p_swiper uuid, p_target uuid, p_app text, p_action smallint, p_quiz boolean,
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
            -- Migration 17's trigger leaves this transaction's swipes to the bump below.
            PERFORM set_config('discovery.swipe_writer', 'function', true);
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
        """)

    /// The member's feed version tells their own swipes from every other change (`FeedStamp`):
    /// `discovery.swipe` still adds 1, and everything else that bumps it (blocks either way,
    /// reports, older releases' swipes through migration 17's trigger) now adds 2^32. A kept
    /// feed window whose stamp moved by less than 2^32 lost only the people the viewer swiped.
    static let ownSwipesApart = Migration(version: 19, name: "feed version: own swipes apart", sql: """
        CREATE OR REPLACE FUNCTION discovery.bump_feed_members(members uuid[]) RETURNS void LANGUAGE sql AS $$
            INSERT INTO discovery.feed_member_versions AS v (account_id, version)
            SELECT DISTINCT m, 4294967296 FROM unnest(members) m
            ON CONFLICT (account_id) DO UPDATE SET version = v.version + 4294967296
        $$;
        """)
}
