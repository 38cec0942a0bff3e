package import Logging

/// A swift-log handler writing one record per line, as JSON or text, to a `LogSink`
/// (standard error by default).
///
/// JSON lines have the keys `timestamp` (RFC 3339, UTC, milliseconds), `level`, `label`,
/// `message` and `metadata` (an object, omitted when empty); an error attached to the event
/// appears as `metadata.error`.
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
    private let sink: LogSink

    /// A handler writing to `sink`.
    package init(label: String, level: Logger.Level = .info, format: LogFormat, sink: LogSink = .standardError,
                 metadataProvider: Logger.MetadataProvider? = .traceContext) {
        self.label = label
        self.logLevel = level
        self.format = format
        self.sink = sink
        self.metadataProvider = metadataProvider
    }

    /// One metadata value of this handler.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Formats and writes one record.
    package func log(event: LogEvent) {
        // Later sources win on a shared key: the handler's metadata, the provider's, the
        // event's, then the error. Kept sorted as they come, rather than merged dictionaries
        // sorted at the end (this runs for every logged call).
        var fields = LogRecord.Fields()
        fields.set(metadata)
        if let provided = metadataProvider?.get() { fields.set(provided) }
        if let extra = event.metadata { fields.set(extra) }
        if let error = event.error {
            fields.set("error", .string(String(describing: error)))
        }
        let record = LogRecord(timestamp: LogRecord.now(), level: event.level, label: label,
                               message: event.message.description, metadata: fields)
        switch format {
        case .json: sink.write(record.jsonLine())
        case .text: sink.write(record.textLine())
        }
        // Lines above info are rare and often read at once (a development one-time code, trouble
        // before a crash): written before the caller goes on, with every line before them.
        if event.level > .info { sink.flush() }
    }
}
