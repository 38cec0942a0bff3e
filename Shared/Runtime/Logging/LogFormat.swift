/// How log records are written: one JSON object per line, or a line of text for people.
package enum LogFormat: String, Sendable, CaseIterable {
    case json
    case text
}
