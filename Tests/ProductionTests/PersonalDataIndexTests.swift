@testable import Production
import Postgres
import Runtime
import Testing
import TestSupport

/// Any member may ask for their export at any time: production's export finds a member's rows of
/// every section through an index, never by reading a table whole.
@Suite struct PersonalDataIndexTests {
    @Test func everyExportSection_findsAMembersRowsByAnIndex() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "production"))
        defer { pool.close() }
        _ = try await Migrator(schema: "production", migrations: try ProductionMigrations.all()).migrate(pool)
        let exporter = PersonalDataExporter(service: "production", sections: CastingService.personalData, pool: pool)
        let readWhole = try await exporter.sectionsReadWhole()
        #expect(readWhole.isEmpty, "tables read whole (section): \(readWhole.joined(separator: ", "))")
    }
}
