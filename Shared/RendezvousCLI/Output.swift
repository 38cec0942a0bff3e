import ArgumentParser
import Contracts
import Foundation
import GatewayClient
import RPC

/// A JSON object as the CLI prints it (built from contract messages field by field).
typealias JSONObject = [String: Any]

/// How a command prints: text for people, or one JSON document (or one per line when
/// streaming) for scripts. Errors always go to stderr.
struct Output {
    let json: Bool

    /// Prints `object` as JSON, or `text()` for people.
    func emit(_ object: Any, text: () -> String) {
        if json {
            print(Self.encode(object, pretty: true))
        } else {
            print(text())
        }
    }

    /// One event of a stream: a JSON line, or `text()`.
    func emitLine(_ object: JSONObject, text: () -> String) {
        print(json ? Self.encode(object, pretty: false) : text())
        // Flush per event: a script reading the pipe sees each line as it happens.
        fflush(nil)
    }

    static func encode(_ object: Any, pretty: Bool) -> String {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { options.insert(.prettyPrinted) }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: options) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes `text` and a newline to stderr.
    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Reports a failed call on stderr: the status, the reason and the message (JSON with --json).
    func report(_ error: RPCError) {
        if json {
            var object: JSONObject = ["code": error.code.description, "message": error.message]
            if let reason = error.reason { object["reason"] = reason }
            if !error.details.isEmpty { object["details"] = error.details }
            Self.printError(Self.encode(["error": object], pretty: false))
        } else {
            var line = "error: \(error.code)"
            if let reason = error.reason { line += " \(reason)" }
            if !error.message.isEmpty { line += ": \(error.message)" }
            let details = error.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            if !details.isEmpty { line += " (\(details.joined(separator: ", ")))" }
            Self.printError(line)
        }
    }

    /// Reports a local failure (a file that cannot be read, a bad value) on stderr.
    func report(message: String) {
        if json {
            Self.printError(Self.encode(["error": ["message": message]], pretty: false))
        } else {
            Self.printError("error: \(message)")
        }
    }

    /// Columns padded to their widest cell; cells longer than 40 characters are cut.
    static func table(_ headers: [String], _ rows: [[String]]) -> String {
        let cut = rows.map { $0.map { $0.count > 40 ? String($0.prefix(39)) + "…" : $0 } }
        var widths = headers.map(\.count)
        for row in cut { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(headers)] + cut.map(line)).joined(separator: "\n")
    }

    /// `field  value` lines, aligned; fields without a value are left out.
    static func fields(_ pairs: [(String, String)]) -> String {
        let pairs = pairs.filter { !$0.1.isEmpty }
        let width = pairs.map(\.0.count).max() ?? 0
        return pairs.map { "\($0.0.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.1)" }.joined(separator: "\n")
    }
}
