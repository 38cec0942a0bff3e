import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct PostgresValueTests {
    /// Sends `value` as a parameter, casts it to `sql` type, and decodes it back.
    private func roundTrip<T: PostgresDecodable>(_ value: PostgresValue, cast type: String,
                                                 as: T.Type = T.self) async throws -> T {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let rows = try await pool.withConnection { try await $0.query("SELECT $1::\(type)", [value]) }
        #expect(rows.count == 1)
        return try rows[0].decode(0, as: T.self)
    }

    /// A row a caller expected and the database no longer had (deleted between two statements)
    /// fails that call; it once trapped, ending the process.
    @Test func aRowPastTheEnd_throws_ratherThanTraps() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let rows = try await pool.withConnection { try await $0.query("SELECT 1::int8 WHERE false") }
        #expect(rows.isEmpty)
        #expect(throws: PostgresError.self) { try rows[0].decode(0, as: Int64.self) }
        #expect(throws: PostgresError.self) { try rows[-1].decode(0, as: Int64.self) }
    }

    @Test func text_roundTrips() async throws {
        #expect(try await roundTrip(.text("héllo, 世界 🙂"), cast: "text") == "héllo, 世界 🙂")
        #expect(try await roundTrip(.text(""), cast: "text") == "")
        #expect(try await roundTrip(.text(nil), cast: "text", as: String?.self) == nil)
    }

    @Test func integers_roundTrip() async throws {
        #expect(try await roundTrip(.int16(.min), cast: "int2") == Int16.min)
        #expect(try await roundTrip(.int32(.max), cast: "int4") == Int32.max)
        #expect(try await roundTrip(.int64(.min), cast: "int8") == Int64.min)
        #expect(try await roundTrip(.int(42), cast: "int8") == 42)
        #expect(try await roundTrip(.int32(7), cast: "int4", as: Int64.self) == 7)  // widening
        #expect(try await roundTrip(.int64(nil), cast: "int8", as: Int64?.self) == nil)
    }

    @Test func boolAndDouble_roundTrip() async throws {
        #expect(try await roundTrip(.bool(true), cast: "bool") == true)
        #expect(try await roundTrip(.bool(false), cast: "bool") == false)
        #expect(try await roundTrip(.double(-1.5e-300), cast: "float8") == -1.5e-300)
        #expect(try await roundTrip(.double(.infinity), cast: "float8") == Double.infinity)
        #expect(try await roundTrip(.bool(nil), cast: "bool", as: Bool?.self) == nil)
    }

    @Test(arguments: [(Int64(1999), 2), (-5, 2), (0, 2), (Int64.max, 0), (123_456, 4), (-1, 3)])
    func numeric_roundTripsAsMinorUnits(minorUnits: Int64, scale: Int) async throws {
        let numeric = try await roundTrip(.numeric(minorUnits: minorUnits, scale: scale),
                                          cast: "numeric", as: PostgresNumeric.self)
        #expect(try numeric.minorUnits(scale: scale) == minorUnits)
    }

    @Test func numeric_column_convertsScale() async throws {
        let money = try await roundTrip(.numeric(minorUnits: 1999, scale: 2), cast: "numeric(12,4)",
                                        as: PostgresNumeric.self)
        #expect(money.scale == 4)
        #expect(try money.minorUnits(scale: 2) == 1999)
        #expect(throws: PostgresError.self) { try money.minorUnits(scale: 0) }
    }

    @Test func uuid_roundTrips() async throws {
        let id = UUID()
        #expect(try await roundTrip(.uuid(id), cast: "uuid") == id)
        #expect(try await roundTrip(.uuid(nil), cast: "uuid", as: UUID?.self) == nil)
    }

    @Test func timestamptz_roundTripsWithMicroseconds() async throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let decoded = try await roundTrip(.timestamptz(date), cast: "timestamptz", as: Date.self)
        #expect(abs(decoded.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
        let old = Date(timeIntervalSince1970: -1_000_000_000.5)  // before the 2000 epoch
        let decodedOld = try await roundTrip(.timestamptz(old), cast: "timestamptz", as: Date.self)
        #expect(abs(decodedOld.timeIntervalSince1970 - old.timeIntervalSince1970) < 0.000_001)
        #expect(try await roundTrip(.timestamptz(.distantFuture), cast: "timestamptz", as: Date.self) == .distantFuture)
    }

    @Test func timestamptz_matchesServerClock() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let rows = try await pool.withConnection {
            try await $0.query("SELECT timestamptz '2024-02-29 12:34:56.789012+00'")
        }
        let date = try rows[0].decode(0, as: Date.self)
        #expect(abs(date.timeIntervalSince1970 - 1_709_210_096.789012) < 0.000_001)
    }

    @Test func jsonb_roundTripsAsTextAndBytes() async throws {
        let json = #"{"a": [1, 2], "b": "ü"}"#
        #expect(try await roundTrip(.jsonb(json), cast: "jsonb") == json)
        let bytes = try await roundTrip(.jsonb(bytes: Array(json.utf8)), cast: "jsonb", as: [UInt8].self)
        #expect(bytes == Array(json.utf8))
        #expect(try await roundTrip(.jsonb(nil as String?), cast: "jsonb", as: String?.self) == nil)
    }

    @Test func bytea_roundTrips() async throws {
        let bytes: [UInt8] = [0, 1, 2, 0xff, 0, 39, 92]
        #expect(try await roundTrip(.bytea(bytes), cast: "bytea", as: [UInt8].self) == bytes)
        #expect(try await roundTrip(.bytea([]), cast: "bytea", as: [UInt8].self) == [])
        #expect(try await roundTrip(.bytea(nil), cast: "bytea", as: [UInt8]?.self) == nil)
    }

    @Test func arrays_roundTrip() async throws {
        #expect(try await roundTrip(.textArray(["a", "", "ç,\"}"]), cast: "text[]", as: [String].self) == ["a", "", "ç,\"}"])
        #expect(try await roundTrip(.textArray([]), cast: "text[]", as: [String].self) == [])
        #expect(try await roundTrip(.int32Array([1, -2]), cast: "int4[]", as: [Int32].self) == [1, -2])
        #expect(try await roundTrip(.int64Array([.max, 0]), cast: "int8[]", as: [Int64].self) == [.max, 0])
        let ids = [UUID(), UUID()]
        #expect(try await roundTrip(.uuidArray(ids), cast: "uuid[]", as: [UUID].self) == ids)
        #expect(try await roundTrip(.textArray(nil), cast: "text[]", as: [String]?.self) == nil)
    }

    @Test func arrays_withNullElements_decodeAsOptionals() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let rows = try await pool.withConnection { try await $0.query("SELECT ARRAY['x', NULL, 'z']") }
        #expect(try rows[0].decode(0, as: [String?].self) == ["x", nil, "z"])
        #expect(throws: PostgresError.self) { try rows[0].decode(0, as: [String].self) }
    }

    @Test func untypedNull_isInferredByTheServer() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let rows = try await pool.withConnection {
            try await $0.query("SELECT $1::int8 IS NULL, $2::text", [.null, .null])
        }
        #expect(try rows[0].decode(0, as: Bool.self))
        #expect(try rows[0].decode(1, as: String?.self) == nil)
    }

    @Test func decode_wrongType_throwsWithoutTheValue() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let rows = try await pool.withConnection { try await $0.query("SELECT 'secret-value'::text AS name") }
        let error = #expect(throws: PostgresError.self) { try rows[0].decode("name", as: Int64.self) }
        #expect(error?.code == .decodingFailed)
        #expect(error.map { !String(describing: $0).contains("secret-value") } == true)
        #expect(throws: PostgresError.self) { try rows[0].decode(0, as: UUID.self) }
    }

    @Test func table_roundTripOfEveryType_includingNulls() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let table = TestDatabase.uniqueName("every_type")
        try await pool.withConnection { connection in
            try await connection.executeScript("""
                CREATE TABLE \(table) (id uuid PRIMARY KEY, t text, i2 int2, i4 int4, i8 int8, b bool,
                  d float8, price numeric(12,2), at timestamptz, doc jsonb, raw bytea, tags text[],
                  nums int8[], refs uuid[])
                """)
            let id = UUID(), other = UUID()
            let now = Date(timeIntervalSince1970: 1_750_000_000.5)
            let full: [PostgresValue] = [.uuid(id), .text("t"), .int16(2), .int32(4), .int64(8), .bool(true),
                                         .double(0.25), .numeric(minorUnits: 12_345), .timestamptz(now),
                                         .jsonb(#"{"k": 1}"#), .bytea([1, 2]), .textArray(["a"]),
                                         .int64Array([1]), .uuidArray([other])]
            let empty: [PostgresValue] = [.uuid(other), .text(nil), .int16(nil), .int32(nil), .int64(nil),
                                          .bool(nil), .double(nil), .numeric(minorUnits: nil), .timestamptz(nil),
                                          .jsonb(nil as String?), .bytea(nil), .textArray(nil), .int64Array(nil),
                                          .uuidArray(nil)]
            let insert = "INSERT INTO \(table) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)"
            #expect(try await connection.execute(insert, full) == 1)
            #expect(try await connection.execute(insert, empty) == 1)
            let rows = try await connection.query("SELECT * FROM \(table) ORDER BY id = $1 DESC", [.uuid(id)])
            let row = rows[0]
            #expect(try row.decode("id", as: UUID.self) == id)
            #expect(try row.decode("t", as: String.self) == "t")
            #expect(try row.decode("i2", as: Int16.self) == 2)
            #expect(try row.decode("i4", as: Int32.self) == 4)
            #expect(try row.decode("i8", as: Int64.self) == 8)
            #expect(try row.decode("b", as: Bool.self))
            #expect(try row.decode("d", as: Double.self) == 0.25)
            #expect(try row.decode("price", as: PostgresNumeric.self).minorUnits() == 12_345)
            #expect(try row.decode("at", as: Date.self) == now)
            #expect(try row.decode("doc", as: String.self) == #"{"k": 1}"#)
            #expect(try row.decode("raw", as: [UInt8].self) == [1, 2])
            #expect(try row.decode("tags", as: [String].self) == ["a"])
            #expect(try row.decode("nums", as: [Int64].self) == [1])
            #expect(try row.decode("refs", as: [UUID].self) == [other])
            let nulls = rows[1]
            for column in 1..<rows.columns.count {
                #expect(try nulls.decode(column, as: String?.self) == nil)
            }
            #expect(try nulls.decode("i8", as: Int64?.self) == nil)
            #expect(try nulls.decode("refs", as: [UUID]?.self) == nil)
            #expect(throws: PostgresError.self) { try nulls.decode("i8", as: Int64.self) }
            try await connection.executeScript("DROP TABLE \(table)")
        }
    }

    @Test func postgis_pointDistance_viaMakePointAndWKB() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let table = TestDatabase.uniqueName("places")
        try await pool.withConnection { connection in
            try await connection.executeScript("CREATE TABLE \(table) (id int4 PRIMARY KEY, at geography(Point, 4326))")
            // Paris, from longitude/latitude parameters.
            try await connection.execute("INSERT INTO \(table) VALUES (1, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography)",
                                         [.double(2.3522), .double(48.8566)])
            let wkb = try await connection.query("SELECT ST_AsBinary(at) FROM \(table) WHERE id = 1")[0]
                .decode(0, as: [UInt8].self)
            // London, from WKB bytes.
            let london = try await connection.query("SELECT ST_AsBinary(ST_MakePoint(-0.1276, 51.5072))")[0]
                .decode(0, as: [UInt8].self)
            try await connection.execute("INSERT INTO \(table) VALUES (2, ST_GeogFromWKB($1))", [.bytea(london)])
            let meters = try await connection.query("""
                SELECT ST_Distance(a.at, b.at) FROM \(table) a, \(table) b WHERE a.id = 1 AND b.id = 2
                """)[0].decode(0, as: Double.self)
            #expect(abs(meters - 343_900) < 1_500)  // Paris–London ≈ 344 km
            #expect(wkb.count == 21)  // byte order + type + two float8
            try await connection.executeScript("DROP TABLE \(table)")
        }
    }
}
