import Foundation
import TestSupport

/// GETs a URL with the stock curl, as an app's image loader would: over HTTP/2 with prior
/// knowledge (h2c) or HTTP/1.1; returns the status, headers (lowercase names) and body.
enum Curl {
    struct Response {
        var status: Int
        var httpVersion: String
        var headers: [String: String]
        var body: [UInt8]
    }

    static func get(_ url: String, http2: Bool, head: Bool = false, headers: [String] = []) async throws -> Response {
        let folder = NSTemporaryDirectory() + "curl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var arguments = ["-sS", "--max-time", "10", http2 ? "--http2-prior-knowledge" : "--http1.1",
                         "-D", folder + "/head", "-o", folder + "/body"]
        if head { arguments.append("-I") }
        for header in headers { arguments += ["-H", header] }
        arguments.append(url)
        let result = try await Subprocess.run("/usr/bin/curl", arguments, timeout: .seconds(20))
        guard result.exitCode == 0 else { throw SubprocessError(message: "curl: \(result.output)") }
        let text = (try? String(contentsOfFile: folder + "/head", encoding: .utf8)) ?? ""
        let lines = text.split(whereSeparator: \.isNewline)
        guard let statusLine = lines.first else { throw SubprocessError(message: "curl: no response head") }
        let parts = statusLine.split(separator: " ")
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = FileManager.default.contents(atPath: folder + "/body").map(Array.init) ?? []
        // With -I curl writes the head to the output too: what follows it is what the server sent as a body.
        if head, body.starts(with: Array(text.utf8)) { body.removeFirst(text.utf8.count) }
        return Response(status: Int(parts[1]) ?? 0, httpVersion: String(parts[0]), headers: fields, body: body)
    }
}
