extension QRCode {
    /// The symbol as text, two module rows per line with Unicode half blocks (▀ ▄ █), inside a
    /// light quiet zone of `quietZone` modules (the spec asks for 4).
    ///
    /// Terminals draw glyphs in the foreground colour, so by default light modules are the
    /// glyphs and dark modules are blank: right for a light-on-dark terminal. `darkOnLight`
    /// draws the dark modules instead, for a terminal with a light background.
    func terminalRendering(quietZone: Int = 4, darkOnLight: Bool = false) -> String {
        let span = size + 2 * quietZone
        func inked(_ x: Int, _ y: Int) -> Bool {
            let sx = x - quietZone, sy = y - quietZone
            let isDark = (0..<size).contains(sx) && (0..<size).contains(sy) && isDark(x: sx, y: sy)
            return isDark == darkOnLight
        }
        var lines: [String] = []
        for top in stride(from: 0, to: span, by: 2) {
            var line = ""
            for x in 0..<span {
                let upper = inked(x, top)
                let lower = top + 1 < span && inked(x, top + 1)
                let glyph: Character = switch (upper, lower) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
                line.append(glyph)
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
