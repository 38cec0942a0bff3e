package import Logging
import Tracing

/// A swift-log handler writing one record per line, as JSON or text, to a `LogSink`
/// (standard error by default).
///
/// JSON lines have the keys `timestamp` (RFC 3339, UTC, milliseconds), `level`, `label`,
/// `message` and `metadata` (an object, omitted when empty); an error attached to the event
/// appears as `metadata.error`. A record logged inside a traced call (the RPC server runs each
/// handler in its call's span) carries the span's `trace_id` and `span_id`.
package struct StructuredLogHandler: LogHandler {
    /// Metadata attached to every record of this handler.
    package var metadata: Logger.Metadata = [:]
    /// Contextual metadata added at each record.
    package var metadataProvider: Logger.MetadataProvider?
    /// The lowest level written.
    package var logLevel: Logger.Level
    /// The logger's label, written with every record.
    package let label: String
    /// JSON lines or text.
    package let format: LogFormat
    /// Whether records name the current task's span (`trace_id`, `span_id`).
    package let namesSpan: Bool
    private let sink: LogSink

    /// A handler writing to `sink`.
    package init(label: String, level: Logger.Level = .info, format: LogFormat, sink: LogSink = .standardError,
                 namesSpan: Bool = true, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.logLevel = level
        self.format = format
        self.sink = sink
        self.namesSpan = namesSpan
        self.metadataProvider = metadataProvider
    }

    /// One metadata value of this handler.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Formats and writes one record.
    package func log(event: LogEvent) {
        var fields = contextFields()
        if let extra = event.metadata { fields.set(extra) }
        if let error = event.error {
            fields.set("error", .string(String(describing: error)))
        }
        write(level: event.level, message: event.message.description, fields: fields)
    }

    /// Writes the record `log` writes for `metadata`, given as pairs in key order (each key
    /// once) instead of swift-log's dictionary: no hashing, and each field lands at the end of
    /// the line's sorted fields. `LoggingInterceptor` writes its line per call this way.
    package func log(level: Logger.Level, message: String, sortedMetadata metadata: [(key: String, value: Logger.MetadataValue)]) {
        guard level >= logLevel else { return }
        var fields = contextFields()
        for (key, value) in metadata { fields.set(key, value) }
        write(level: level, message: message, fields: fields)
    }

    /// The fields every record starts from. Later sources win on a shared key: the handler's
    /// metadata, the span's ids, the provider's, then the event's. Kept sorted as they come,
    /// rather than merged dictionaries sorted at the end (this runs for every logged call).
    private func contextFields() -> LogRecord.Fields {
        var fields = LogRecord.Fields()
        fields.set(metadata)
        if namesSpan, let span = InstrumentationContext.current?.spanContext {
            fields.set("span_id", .string(span.spanID.hex))
            fields.set("trace_id", .string(span.traceID.hex))
        }
        if let provided = metadataProvider?.get() { fields.set(provided) }
        return fields
    }

    private func write(level: Logger.Level, message: String, fields: LogRecord.Fields) {
        let record = LogRecord(timestamp: LogRecord.now(), level: level, label: label, message: message, metadata: fields)
        switch format {
        case .json: sink.write(record.jsonLine())
        case .text: sink.write(record.textLine())
        }
        // Lines above info are rare and often read at once (a development one-time code, trouble
        // before a crash): written before the caller goes on, with every line before them.
        if level > .info { sink.flush() }
    }
}
