import Contracts
import Foundation
import Postgres
import Runtime

/// The show's money: entries, and the sums producers read from them. Every sum is per currency.
enum LedgerStore {
    static let columns = """
        id, entry_type, category, amount_minor, currency, episode_id, season_id, receipt_media_id, description,
        recorded_by, \(UnixMicroseconds.sql("created_at"))
        """

    static func insert(_ request: Production.AddLedgerEntryRequest, amount: Production.Money, app: String, season: UUID?,
                       episode: UUID?, recordedBy: UUID, on connection: Connection) async throws -> Production.LedgerEntry {
        let rows = try await connection.query("""
            INSERT INTO production.ledger_entries (id, app, entry_type, category, amount_minor, currency, season_id, episode_id,
                                                   receipt_media_id, description, recorded_by)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING \(columns)
            """, [.uuid(UUID.random()), .text(app), .int16(Int16(request.type.rawValue)), .text(request.category),
                  .int64(amount.amountMinor), .text(amount.currency), .uuid(season), .uuid(episode),
                  .text(request.receiptMediaID), .text(request.description), .uuid(recordedBy)])
        return try entry(rows[0])
    }

    static func list(app: String, season: UUID?, episode: UUID?, after cursor: PageCursor?, limit: Int,
                     on connection: Connection) async throws -> [Production.LedgerEntry] {
        try await connection.query("""
            SELECT \(columns) FROM production.ledger_entries
            WHERE app = $1 AND ($2::uuid IS NULL OR season_id = $2) AND ($3::uuid IS NULL OR episode_id = $3)
              AND ($4::int8 IS NULL OR (\(UnixMicroseconds.sql("created_at")), id) < ($4, $5::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $6
            """, [.text(app), .uuid(season), .uuid(episode), .int64(cursor?.microseconds), .uuid(cursor?.id), .int(limit)])
            .map(entry)
    }

    /// Which entries a P&L covers: a season's (its episodes' included) or one episode's.
    enum Scope {
        case season(UUID)
        case episode(UUID)

        var condition: String { switch self { case .season: "season_id = $1"; case .episode: "episode_id = $1" } }
        var id: UUID { switch self { case .season(let id), .episode(let id): id } }
    }

    /// The P&L in one pass over the scope's entries: totals per currency, per category and per
    /// episode are grouping sets of the same scan (GROUPING tells them apart: 7 totals,
    /// 1 categories, 6 episodes).
    static func profitAndLoss(_ scope: Scope, on connection: Connection) async throws -> Production.ProfitAndLoss {
        let rows = try await connection.query("""
            WITH grouped AS (
                SELECT GROUPING(entry_type, category, episode_id)::int4 AS kind, entry_type, category, episode_id, currency,
                       coalesce(sum(amount_minor) FILTER (WHERE entry_type = 1), 0)::int8 AS income,
                       coalesce(sum(amount_minor) FILTER (WHERE entry_type = 2), 0)::int8 AS expense,
                       count(*)::int8 AS entries
                FROM production.ledger_entries WHERE \(scope.condition)
                GROUP BY GROUPING SETS ((currency), (entry_type, category, currency), (episode_id, currency))
            )
            SELECT g.kind, g.entry_type, g.category, g.episode_id, e.number, e.title, g.currency, g.income, g.expense, g.entries
            FROM grouped g LEFT JOIN production.episodes e ON e.id = g.episode_id
            WHERE g.kind <> 6 OR g.episode_id IS NOT NULL
            ORDER BY g.kind DESC, g.entry_type, g.category, e.number, g.currency
            """, [.uuid(scope.id)])
        var report = Production.ProfitAndLoss()
        for row in rows {
            let currency: String = try row.decode(6)
            let (income, expense): (Int64, Int64) = (try row.decode(7), try row.decode(8))
            switch try row.decode(0, as: Int32.self) {
            case 7:
                report.totals.append(currencyTotals(currency: currency, income: income, expense: expense))
                report.entryCount += try row.decode(9, as: Int64.self)
            case 1:
                let type = Production.EntryType(rawValue: Int32(try row.decode(1, as: Int16.self)))
                report.categories.append(Production.CategoryTotal(type: type, category: try row.decode(2), currency: currency,
                                                                  amountMinor: type == .income ? income : expense,
                                                                  entries: Int32(clamping: try row.decode(9, as: Int64.self))))
            default:
                guard case .season = scope else { continue }
                let id = try row.decode(3, as: UUID.self).lowercased
                let totals = currencyTotals(currency: currency, income: income, expense: expense)
                if report.episodes.last?.episodeID == id {
                    report.episodes[report.episodes.count - 1].totals.append(totals)
                } else {
                    report.episodes.append(Production.EpisodeLine(episodeID: id, number: try row.decode(4), title: try row.decode(5),
                                                                  totals: [totals]))
                }
            }
        }
        return report
    }

    /// The season's net in `currency` and how many of its episodes have been filmed.
    static func seasonActuals(_ season: UUID, currency: String, on connection: Connection) async throws
        -> (net: Int64, episodes: Int32) {
        let rows = try await connection.query("""
            SELECT coalesce(sum(CASE WHEN entry_type = 1 THEN amount_minor ELSE -amount_minor END), 0)::int8,
                   (SELECT count(*)::int4 FROM production.episodes WHERE season_id = $1 AND status >= 4)
            FROM production.ledger_entries WHERE season_id = $1 AND currency = $2
            """, [.uuid(season), .text(currency)])
        return (try rows[0].decode(0), try rows[0].decode(1))
    }

    static func sponsorLines(_ season: UUID, currency: String, on connection: Connection) async throws -> [Production.SponsorLine] {
        try await connection.query("""
            SELECT e.id, e.number, e.title, e.sponsor,
                   coalesce(sum(l.amount_minor) FILTER (WHERE l.entry_type = 1), 0)::int8,
                   coalesce(sum(l.amount_minor) FILTER (WHERE l.entry_type = 2), 0)::int8, e.view_count
            FROM production.episodes e
            LEFT JOIN production.ledger_entries l ON l.episode_id = e.id AND l.currency = $2
            WHERE e.season_id = $1 GROUP BY e.id ORDER BY e.number
            """, [.uuid(season), .text(currency)]).map { row in
            var line = Production.SponsorLine()
            line.episodeID = try row.decode(0, as: UUID.self).lowercased
            line.number = try row.decode(1)
            line.title = try row.decode(2)
            line.sponsor = try row.decode(3)
            line.incomeMinor = try row.decode(4)
            line.costMinor = try row.decode(5)
            line.viewCount = try row.decode(6)
            if line.costMinor > 0 { line.roiBasisPoints = basisPoints(line.incomeMinor - line.costMinor, of: line.costMinor) }
            if line.viewCount > 0 { line.costPerViewMinor = dividedRoundingUp(line.costMinor, by: line.viewCount) }
            return line
        }
    }

    /// `part` / `whole` in basis points, without overflow for any sums (a view count a producer
    /// sets may be up to Int64.max).
    static func basisPoints(_ part: Int64, of whole: Int64) -> Int64 {
        let (scaled, overflow) = part.multipliedReportingOverflow(by: 10_000)
        if !overflow { return scaled / whole }
        let (coarse, stillOverflow) = (part / whole).multipliedReportingOverflow(by: 10_000)
        return stillOverflow ? (part < 0 ? .min : .max) : coarse
    }

    /// `value` / `divisor` rounded up, for a non-negative value and a positive divisor.
    static func dividedRoundingUp(_ value: Int64, by divisor: Int64) -> Int64 {
        value / divisor + (value % divisor == 0 ? 0 : 1)
    }

    static func currencyTotals(currency: String, income: Int64, expense: Int64) -> Production.CurrencyTotals {
        Production.CurrencyTotals(currency: currency, incomeMinor: income, expenseMinor: expense, netMinor: income - expense)
    }

    static func entry(_ row: PostgresRow) throws -> Production.LedgerEntry {
        var entry = Production.LedgerEntry()
        entry.id = try row.decode(0, as: UUID.self).lowercased
        entry.type = Production.EntryType(rawValue: Int32(try row.decode(1, as: Int16.self)))
        entry.category = try row.decode(2)
        entry.amount = Production.Money(amountMinor: try row.decode(3), currency: try row.decode(4))
        entry.episodeID = try row.decode(5, as: UUID?.self)?.lowercased ?? ""
        entry.seasonID = try row.decode(6, as: UUID?.self)?.lowercased ?? ""
        entry.receiptMediaID = try row.decode(7)
        entry.description = try row.decode(8)
        entry.recordedBy = try row.decode(9, as: UUID?.self)?.lowercased ?? ""
        entry.createdAt = Timestamp(microseconds: try row.decode(10))
        return entry
    }
}
