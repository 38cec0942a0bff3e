import Foundation
import TestSupport

/// One HTTP request made with the stock curl, as a browser's gRPC-Web library would make it:
/// HTTP/2 with prior knowledge (h2c) straight to a service, or HTTP/1.1 to the edge. Returns the
/// final status, headers (lowercase names) and the raw body.
enum WebCurl {
    struct Response {
        var status: Int
        var httpVersion: String
        var headers: [String: String]
        var body: [UInt8]
    }

    static func request(_ url: String, method: String = "POST", http2: Bool, headers: [String] = [],
                        body: [UInt8]? = nil) async throws -> Response {
        let folder = NSTemporaryDirectory() + "webcurl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var arguments = ["-sS", "--max-time", "10", http2 ? "--http2-prior-knowledge" : "--http1.1", "-X", method,
                         "-D", folder + "/head", "-o", folder + "/body"]
        for header in headers { arguments += ["-H", header] }
        if let body {
            try Data(body).write(to: URL(fileURLWithPath: folder + "/request"))
            arguments += ["--data-binary", "@" + folder + "/request"]
        }
        arguments.append(url)
        let result = try await Subprocess.run("/usr/bin/curl", arguments, timeout: .seconds(20))
        guard result.exitCode == 0 else { throw SubprocessError(message: "curl: \(result.output)") }
        let text = (try? String(contentsOfFile: folder + "/head", encoding: .utf8)) ?? ""
        // The last head is the response's (an interim 100 Continue may come first).
        let lines = text.split(whereSeparator: \.isNewline)
        guard let statusIndex = lines.lastIndex(where: { $0.hasPrefix("HTTP/") }) else {
            throw SubprocessError(message: "curl: no response head")
        }
        let parts = lines[statusIndex].split(separator: " ")
        var fields: [String: String] = [:]
        for line in lines[(statusIndex + 1)...] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let responseBody = FileManager.default.contents(atPath: folder + "/body").map(Array.init) ?? []
        return Response(status: Int(parts[1]) ?? 0, httpVersion: String(parts[0]), headers: fields, body: responseBody)
    }
}

/// gRPC-Web bodies taken apart the way a client reads them (PROTOCOL-WEB.md).
enum WebBody {
    struct Frame: Equatable {
        var flag: UInt8
        var payload: [UInt8]
    }

    /// A length-prefixed frame.
    static func frame(_ payload: [UInt8], flag: UInt8 = 0) -> [UInt8] {
        let length = UInt32(payload.count)
        return [flag, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + payload
    }

    /// The frames of a binary body; nil when it does not split into whole frames.
    static func frames(_ body: [UInt8]) -> [Frame]? {
        var frames: [Frame] = []
        var offset = 0
        while offset < body.count {
            guard body.count - offset >= 5 else { return nil }
            let length = Int(body[offset + 1]) << 24 | Int(body[offset + 2]) << 16 | Int(body[offset + 3]) << 8 | Int(body[offset + 4])
            guard body.count - offset - 5 >= length else { return nil }
            frames.append(Frame(flag: body[offset], payload: Array(body[(offset + 5)..<(offset + 5 + length)])))
            offset += 5 + length
        }
        return frames
    }

    /// A `-text` body decoded: base64 segments, each ending at its padding or the body's end.
    static func decodeText(_ body: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var start = 0
        var group = 0
        while group + 4 <= body.count {
            if body[group + 3] == UInt8(ascii: "=") {
                guard let bytes = Data(base64Encoded: Data(body[start..<(group + 4)])) else { return nil }
                out += bytes
                start = group + 4
            }
            group += 4
        }
        guard group == body.count else { return nil }
        if start < body.count {
            guard let bytes = Data(base64Encoded: Data(body[start...])) else { return nil }
            out += bytes
        }
        return out
    }

    /// The trailer frame's fields (`name: value` lines).
    static func trailers(_ frame: Frame) -> [String: String] {
        var fields: [String: String] = [:]
        for line in String(decoding: frame.payload, as: UTF8.self).components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }
}
