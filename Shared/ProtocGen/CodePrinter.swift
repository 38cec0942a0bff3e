/// Builds a source file line by line with four-space indentation.
struct CodePrinter {
    private(set) var text = ""
    private var indentation = 0

    /// Appends one line at the current indentation (an empty string adds a blank line); the
    /// lines of a multi-line `content` are each indented.
    mutating func line(_ content: String = "") {
        for part in content.split(separator: "\n", omittingEmptySubsequences: false) {
            if part.isEmpty {
                text += "\n"
            } else {
                text += String(repeating: "    ", count: indentation) + part + "\n"
            }
        }
    }

    /// Appends `opening`, the lines `body` prints one level deeper, then `closing`.
    mutating func block(_ opening: String, closing: String = "}", _ body: (inout CodePrinter) throws -> Void) rethrows {
        line(opening)
        indentation += 1
        try body(&self)
        indentation -= 1
        line(closing)
    }

    /// Appends a `///` doc comment; each line of `comment` becomes one comment line.
    mutating func doc(_ comment: String) {
        for line in comment.split(separator: "\n", omittingEmptySubsequences: false) {
            self.line(line.isEmpty ? "///" : "/// " + line)
        }
    }

    /// Removes a trailing blank line, so the last member of a block is not followed by one.
    mutating func trimTrailingBlankLine() {
        if text.hasSuffix("\n\n") { text.removeLast() }
    }
}
