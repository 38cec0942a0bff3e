/// Times as the services carry them (contracts' `Timestamp(microseconds:)`, page cursors):
/// microseconds since the Unix epoch.
package enum UnixMicroseconds {
    /// SQL reading the timestamptz `expression` as Unix microseconds, exactly (extract is numeric).
    package static func sql(_ expression: String) -> String {
        "(extract(epoch FROM \(expression)) * 1000000)::int8"
    }
}
