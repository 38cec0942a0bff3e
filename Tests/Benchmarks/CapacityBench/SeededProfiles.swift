import Foundation
import Postgres
import TestSupport

/// The ÉLITE members the feeds rank besides the benchmark's own users: `count` admitted, active
/// profiles in discovery's projection, spread over a 2°×2° box around `World.city` (as
/// discovery_bench.py seeds its bench app), written once per database and kept. Their ids end
/// in their number (`World.randomProfile`).
enum SeededProfiles {
    static func ensure(_ count: Int) async throws {
        let pool = try await TestDatabase.makeAdminPool()
        defer { pool.close() }
        let have = try await pool.withConnection { connection in
            try await connection.query("""
                SELECT count(*) FROM discovery.profiles WHERE app = 'elite' AND public_name LIKE 'capacity %'
                """).first?.decode(0, as: Int64.self) ?? 0
        }
        guard have < count else { return }
        Report.say("capacity-bench: seeding \(count) ÉLITE profiles (once per database)")
        try await pool.withConnection { connection in
            try await connection.executeScript("""
                DELETE FROM discovery.profiles WHERE app = 'elite' AND public_name LIKE 'capacity %';
                INSERT INTO discovery.profiles (account_id, app, active, public_name, gender, birth_date, tags, location,
                                                tier, last_active_at, listed_at)
                SELECT ('00000000-0000-4000-9000-' || lpad(to_hex(i), 12, '0'))::uuid, 'elite', true, 'capacity ' || i,
                       1 + i % 3, date '1970-01-01' + (i % 12000), ARRAY['t' || (i % 50), 't' || (i % 37), 't' || (i % 23)],
                       ST_SetSRID(ST_MakePoint(\(World.city.longitude) + (random() - 0.5) * 2,
                                               \(World.city.latitude) + (random() - 0.5) * 2), 4326)::geography,
                       'free', now() - (i % 30) * interval '1 day', now() - interval '40 days'
                FROM generate_series(1, \(count)) i;
                ANALYZE discovery.profiles;
                """)
        }
    }
}
