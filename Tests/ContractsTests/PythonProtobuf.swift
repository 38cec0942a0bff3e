import Foundation
import TestSupport

/// Python's protobuf, with classes generated from proto-docs/, driven through
/// `Fixtures/conformance.py batch`: every request of a test run goes to one Python process.
enum PythonProtobuf {
    /// One line of the batch: decode hex bytes, or encode proto3 JSON, as `type`.
    struct Request: Sendable {
        var id: String
        var op: String
        var type: String
        /// Hex bytes for `decode`, a JSON object's text for `encode`.
        var argument: String

        static func decode(_ id: String, _ type: String, _ bytes: [UInt8]) -> Request {
            Request(id: id, op: "decode", type: type, argument: "\"\(bytes.hex)\"")
        }

        static func encode(_ id: String, _ type: String, json: String) -> Request {
            // Newlines can only be whitespace between JSON tokens; the batch is one request a line.
            Request(id: id, op: "encode", type: type, argument: json.replacingOccurrences(of: "\n", with: " "))
        }

        var line: String {
            let key = op == "decode" ? "hex" : "json"
            return #"{"id":\#(Self.quoted(id)),"op":"\#(op)","type":\#(Self.quoted(type)),"\#(key)":\#(argument)}"#
        }

        /// `text` as a JSON string literal.
        private static func quoted(_ text: String) -> String {
            // Encoding a String cannot fail.
            String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
        }
    }

    /// Python's answer: canonical JSON of the message and its deterministic serialization.
    struct Reply: Decodable, Sendable {
        var id: String?
        var json: String?
        var hex: String?
        var error: String?

        /// The serialization as bytes.
        func bytes() throws -> [UInt8] {
            guard let hex, let bytes = [UInt8](hex: hex) else {
                throw Failure("python reply \(id ?? "?") has no valid hex: \(error ?? "")")
            }
            return bytes
        }
    }

    /// Why Python could not answer: its own words, e.g. a missing module.
    struct Failure: Error, CustomStringConvertible {
        var description: String

        init(_ description: String) {
            self.description = description
        }
    }

    static let script = RepositoryPaths.root.appendingPathComponent("Tests/ContractsTests/Fixtures/conformance.py")

    /// Runs one batch; throws, with Python's own output, if python3 or protobuf is missing.
    static func run(_ requests: [Request]) throws -> [String: Reply] {
        let input = FileManager.default.temporaryDirectory
            .appendingPathComponent("rv-conformance-\(UUID().uuidString).jsonl")
        try Data(requests.map { $0.line + "\n" }.joined().utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "batch"]
        process.standardInput = try FileHandle(forReadingFrom: input)
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let errorReader = Thread.detachNewReader(stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errors = String(decoding: errorReader.wait(), as: UTF8.self)

        guard process.terminationStatus == 0 else {
            throw Failure("""
                python3 \(script.lastPathComponent) exited \(process.terminationStatus) \
                (needs python3 with protobuf and grpcio-tools: `make deps`):
                \(errors)
                """)
        }
        var replies: [String: Reply] = [:]
        for line in output.split(separator: UInt8(ascii: "\n")) {
            let reply = try JSONDecoder().decode(Reply.self, from: Data(line))
            if let id = reply.id { replies[id] = reply }
        }
        guard replies.count == Set(requests.map(\.id)).count else {
            throw Failure("python answered \(replies.count) of \(requests.count) requests:\n\(errors)")
        }
        return replies
    }
}

extension Thread {
    /// Reads `handle` to its end on a thread of its own, so a full pipe never blocks the child.
    fileprivate static func detachNewReader(_ handle: FileHandle) -> PipeReader {
        let reader = PipeReader()
        Thread.detachNewThread {
            reader.finish(handle.readDataToEndOfFile())
        }
        return reader
    }
}

/// The bytes a reader thread collected, handed over once.
private final class PipeReader: @unchecked Sendable {
    // @unchecked Sendable: `data` is written once before `done.signal()` and read after `wait()`.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    func finish(_ data: Data) {
        self.data = data
        done.signal()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

extension [UInt8] {
    /// Lowercase hex, two digits a byte.
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `hex` of at most the first 64 bytes, for failure messages.
    var hexPreview: String {
        count <= 64 ? hex : Array(prefix(64)).hex + "… (\(count) bytes)"
    }

    /// Parses lowercase or uppercase hex; nil for odd lengths or other characters.
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
