import Foundation
import Logging
@testable import Runtime
import Synchronization
import Testing

@Suite struct StructuredLogHandlerTests {
    @Test func json_oneObjectPerLine_withTheDocumentedKeys() throws {
        let capture = LogCapture()
        var logger = capture.logger(label: "identity")
        logger[metadataKey: "instance"] = "a"
        logger.info("signed in", metadata: ["account": "42", "attempts": .stringConvertible(3),
                                            "ratio": .stringConvertible(0.5), "ok": .stringConvertible(true),
                                            "nan": .stringConvertible(Double.nan),
                                            "tags": .array(["x", "y"]), "nested": .dictionary(["k": "v"])])
        let lines = capture.lines
        try #require(lines.count == 1)
        #expect(lines[0].hasSuffix("\n"))
        #expect(lines[0].dropLast().contains("\n") == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["timestamp", "level", "label", "message", "metadata"])
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "identity")
        #expect(object["message"] as? String == "signed in")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["instance"] as? String == "a")
        #expect(metadata["account"] as? String == "42")
        #expect(metadata["attempts"] as? Int == 3)
        #expect(metadata["ratio"] as? Double == 0.5)
        #expect(metadata["ok"] as? Bool == true)
        #expect(metadata["nan"] as? String == "nan")
        #expect(metadata["tags"] as? [String] == ["x", "y"])
        #expect((metadata["nested"] as? [String: String])?["k"] == "v")
        let timestamp = try #require(object["timestamp"] as? String)
        #expect(timestamp.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
    }

    @Test func json_hostileText_isEscaped() throws {
        let capture = LogCapture()
        capture.logger().warning("quote \" backslash \\ newline \n tab \t bell \u{07} é")
        let line = try #require(capture.lines.first)
        #expect(line.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{07} é")
        #expect(object["metadata"] == nil)
    }

    @Test func text_oneLine_withSortedMetadata() throws {
        let capture = LogCapture()
        capture.logger(label: "media", format: .text).error("upload\nfailed", metadata: ["b": "2", "a": "1"])
        let line = try #require(capture.lines.first)
        #expect(line.hasSuffix(" error media: upload failed a=1 b=2\n"))
    }

    /// A Windows line break (one Character in Swift, two bytes) and one inside a metadata value
    /// cannot start a forged line either.
    @Test func text_crlfInMessageAndMetadata_staysOneLine() throws {
        let capture = LogCapture()
        capture.logger(label: "media", format: .text).warning("a\r\nb", metadata: ["k": "x\r\n2025-01-01T00:00:00.000Z error forged"])
        let line = try #require(capture.lines.first)
        #expect(line.filter { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }.count == 1)
        #expect(line.hasSuffix(" warning media: a  b k=x  2025-01-01T00:00:00.000Z error forged\n"))
    }

    @Test func level_belowThreshold_isDropped() {
        let capture = LogCapture()
        let logger = capture.logger(level: .notice)
        logger.info("quiet")
        logger.notice("loud")
        #expect(capture.lines.count == 1)
    }

    /// Per-call info lines may wait in standard error's buffer; a line above info (a development
    /// one-time code a test reads the moment the call returns, trouble before a crash) is flushed
    /// before `log` returns, with the lines before it.
    @Test func linesAboveInfo_areFlushedBeforeLogReturns() {
        let events = Mutex<[String]>([])
        let sink = LogSink(write: { line in events.withLock { $0.append("write") } },
                           flush: { events.withLock { $0.append("flush") } })
        let logger = Logger(label: "x") { label in StructuredLogHandler(label: label, level: .trace, format: .text, sink: sink) }
        logger.debug("d")
        logger.info("i")
        #expect(events.withLock { $0 } == ["write", "write"])
        logger.notice("n")
        logger.warning("w")
        logger.error("e")
        #expect(events.withLock { $0 } == ["write", "write", "write", "flush", "write", "flush", "write", "flush"])
    }

    @Test func metadataProvider_addsContext() throws {
        let capture = LogCapture()
        let sink = capture.sink
        let provider = Logger.MetadataProvider { ["trace": "t-1"] }
        let logger = Logger(label: "x") { label in
            StructuredLogHandler(label: label, format: .json, sink: sink, metadataProvider: provider)
        }
        logger.info("hi")
        #expect(capture.lines.first?.contains(#""trace":"t-1""#) == true)
    }

    @Test(arguments: [
        (0, 0, "1970-01-01T00:00:00.000Z"),
        (1_700_000_000, 5, "2023-11-14T22:13:20.005Z"),
        (951_782_400, 999, "2000-02-29T00:00:00.999Z"),
    ])
    func timestamp_formatsRFC3339(seconds: Int, milliseconds: Int, expected: String) {
        #expect(LogRecord.format(seconds: seconds, milliseconds: milliseconds) == expected)
    }
}
