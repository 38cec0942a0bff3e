@testable import Messaging
import Postgres
import Runtime
import Testing
import TestSupport

/// Any member may ask for their export at any time: messaging's export finds a member's rows of
/// every section through an index, never by reading a table whole.
@Suite struct PersonalDataIndexTests {
    @Test func everyExportSection_findsAMembersRowsByAnIndex() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "messaging"))
        defer { pool.close() }
        _ = try await Migrator(schema: "messaging", migrations: try MessagingMigrations.all()).migrate(pool)
        let exporter = PersonalDataExporter(service: "messaging", sections: MessagingService.personalData, pool: pool)
        let readWhole = try await exporter.sectionsReadWhole()
        #expect(readWhole.isEmpty, "tables read whole (section): \(readWhole.joined(separator: ", "))")
    }
}
