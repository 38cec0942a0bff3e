@testable import Postgres
import Testing

@Suite struct SQLSummaryTests {
    @Test(arguments: [
        ("SELECT id, note FROM identity.accounts WHERE email = $1", "SELECT identity.accounts"),
        ("select * from \"Quoted\".t join other o on o.id = t.id", "SELECT Quoted.t"),
        ("INSERT INTO messaging.messages (id, body) VALUES ($1, $2) RETURNING id", "INSERT messaging.messages"),
        ("UPDATE ONLY discovery.swipes SET seen = true", "UPDATE discovery.swipes"),
        ("DELETE FROM media.blobs WHERE id = $1", "DELETE media.blobs"),
        ("WITH picked AS (SELECT id FROM a.jobs FOR UPDATE SKIP LOCKED) UPDATE a.jobs SET taken = now() FROM picked",
         "UPDATE a.jobs"),
        ("SELECT (SELECT count(*) FROM inner_table) AS n FROM outer_table", "SELECT outer_table"),
        ("-- a comment FROM nowhere\nSELECT 1", "SELECT"),
        ("/* FROM x */ SELECT 'it''s FROM y' FROM z", "SELECT z"),
        ("BEGIN ISOLATION LEVEL SERIALIZABLE", "BEGIN"),
        ("  ", "SQL"),
    ])
    func summary(_ sql: String, _ expected: String) {
        #expect(SQLSummary.of(sql) == expected)
    }

    @Test func summary_neverHoldsALiteral() {
        #expect(SQLSummary.of("SELECT * FROM t WHERE note = 'secret'") == "SELECT t")
        #expect(!SQLSummary.of("INSERT INTO t VALUES ('secret', 42)").contains("secret"))
    }
}
