import ArgumentParser
import Foundation
import GatewayClient

/// `rendezvous export [--out FILE]`: the signed-in member's copy of their own data from every
/// service (GDPR access), one JSON document; without --out it goes to stdout.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Download a copy of all your data from every service, as one JSON document.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "Write the document to this file (created readable by you only) instead of stdout.") var out: String?

    func run() async throws {
        try await options.withClient { client, output in
            let document = try await client.personalData.exportAll()
            let data: Data
            do {
                data = try document.jsonData()
            } catch {
                throw CLIError("the export could not be written as JSON: \(error)")
            }
            guard let out else {
                print(String(decoding: data, as: UTF8.self))
                return
            }
            // Personal data: the file is the member's alone.
            guard FileManager.default.createFile(atPath: out, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CLIError("cannot write \(out)")
            }
            let records = document.exports.reduce(0) { $0 + $1.sections.reduce(0) { $0 + $1.records.count } }
            output.emit(["file": out, "services": document.exports.count, "records": records] as [String: Any]) {
                "wrote \(records) records from \(document.exports.count) services to \(out)"
            }
        }
    }
}
