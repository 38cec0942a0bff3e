import Foundation

/// The printed table: each fault with what it did and the time the services took to serve
/// again after it; the calls and the statuses the clients saw; the audit per kind of write.
struct Report {
    let duration: Int
    let faults: [FaultInjector.Outcome]
    let probes: Probes
    let book: CallBook
    let audit: Audit
    let retried: Int
    let settled: Duration

    /// Recovery beyond this misses the goal.
    static let goal = Duration.seconds(5)

    var text: String {
        var lines = ["", "━━━━ chaos: \(duration) s of load, \(faults.count) faults injected ━━━━",
                     pad("t (s)", 6) + pad("fault", 38) + pad("recovery", 10) + "what happened"]
        var byKind: [String: Int] = [:]
        for (index, outcome) in faults.enumerated() {
            byKind[outcome.fault.kind.rawValue, default: 0] += 1
            // The window ends where the next fault begins (or 15 s on): a later fault's failures are its own.
            let next = faults.dropFirst(index + 1).first { $0.began > outcome.returned }?.began ?? outcome.returned + .seconds(15)
            // An instance's fault is judged by its service's probes; the rest by every service's.
            let service = outcome.fault.kind == .kill || outcome.fault.kind == .stop ? outcome.fault.service : nil
            let recovery = probes.recovery(after: outcome.returned, until: min(next, outcome.returned + .seconds(15)), service: service)
            let shown = recovery.map { FaultInjector.seconds($0) + ($0 > Self.goal ? " !" : "") } ?? "none !"
            let target = outcome.fault.kind == .kill || outcome.fault.kind == .stop ? "\(outcome.fault.service) #\(outcome.fault.instance + 1)" : ""
            lines.append(pad(String(outcome.fault.at), 6) + pad("\(outcome.fault.kind.rawValue) \(target)", 38) + pad(shown, 10)
                         + outcome.detail + " (probe failures during: \(probes.failures(from: outcome.began, to: outcome.returned, service: service)))")
        }
        lines.append("faults by kind: " + byKind.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
        lines.append("recovery: from the dependency's return (the kill, SIGCONT, Postgres up, store fast, APNs up) to the last failed "
                     + "probe (of the instance's service for a kill or a stop, of any service otherwise) before the next fault; "
                     + "goal ≤ \(Self.goal), ! marks a miss")
        lines.append("failed probes: " + probes.failuresByStatus.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: "; "))
        lines.append("")
        lines.append("calls: \(book.calls) (every attempt, retries included); writes sent again after the load (same ids): \(retried); "
                     + "settled in \(FaultInjector.seconds(settled))")
        lines.append("statuses the clients saw: " + book.statuses.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }.joined(separator: "; "))
        let unexpected = book.unexpected
        lines.append("statuses other than UNAVAILABLE / DEADLINE_EXCEEDED / the load's own refusals: "
                     + (unexpected.isEmpty ? "none" : unexpected.map { "\($0.key) ×\($0.value)" }.joined(separator: "; ")))
        lines.append("")
        lines.append(pad("acknowledged writes", 30) + pad("audited", 9) + pad("lost", 6) + pad("dup", 6) + "notes")
        for line in audit.lines {
            lines.append(pad(line.kind, 30) + pad(String(line.audited), 9) + pad(String(line.lost), 6) + pad(String(line.duplicated), 6)
                         + line.notes.joined(separator: "; "))
        }
        lines.append(pad("total", 30) + pad(String(audit.audited), 9) + pad(String(audit.lost), 6) + pad(String(audit.duplicated), 6)
                     + (audit.lost == 0 && audit.duplicated == 0 ? "PASS: 0 lost, 0 duplicated" : "FAIL"))
        return lines.joined(separator: "\n")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
