import Foundation
@testable import RendezvousCLI
import TestSupport

/// Reads QR codes back with zbar (Debian's zbar-tools, `make deps` installs it): the encoder is
/// checked by an independent decoder, not by itself.
enum QRDecoding {
    /// What `zbarimg` reads from a bitmap of `dark` (rows of modules, quiet zone included),
    /// each module drawn `scale` pixels wide; nil when it finds no symbol.
    static func decode(_ dark: [[Bool]], scale: Int = 4) async throws -> String? {
        let file = NSTemporaryDirectory() + "rv-qr-\(UUID().uuidString).pbm"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try pbm(dark, scale: scale).write(toFile: file, atomically: true, encoding: .ascii)
        let zbarimg = "/usr/bin/zbarimg"
        guard FileManager.default.isExecutableFile(atPath: zbarimg) else {
            throw SubprocessError(message: "zbarimg is not installed (make deps installs zbar-tools)")
        }
        let result = try await Subprocess.run(zbarimg, ["--raw", "-q", "-Sdisable", "-Sqrcode.enable", file],
                                              timeout: .seconds(20), separateErrorOutput: true)
        guard result.exitCode == 0 else { return nil }
        // --raw prints the payload and a newline.
        return result.output.hasSuffix("\n") ? String(result.output.dropLast()) : result.output
    }

    /// The symbol with a 4-module light quiet zone, as rows of dark modules.
    static func rows(_ code: QRCode, quietZone: Int = 4) -> [[Bool]] {
        let span = code.size + 2 * quietZone
        return (0..<span).map { y in
            (0..<span).map { x in
                let sx = x - quietZone, sy = y - quietZone
                return (0..<code.size).contains(sx) && (0..<code.size).contains(sy) && code.isDark(x: sx, y: sy)
            }
        }
    }

    /// The modules a terminal rendering (half blocks, light modules inked) shows: the inverse of
    /// `QRCode.terminalRendering()`.
    static func rows(terminal text: String) -> [[Bool]] {
        var rows: [[Bool]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var upper: [Bool] = []
            var lower: [Bool] = []
            for character in line {
                let (top, bottom): (Bool, Bool) = switch character {
                case "█": (true, true)
                case "▀": (true, false)
                case "▄": (false, true)
                default: (false, false)
                }
                // Inked means light.
                upper.append(!top)
                lower.append(!bottom)
            }
            rows.append(upper)
            rows.append(lower)
        }
        // An odd side leaves the last line's lower half outside the drawing.
        if let width = rows.first?.count, rows.count > width { rows.removeLast(rows.count - width) }
        return rows
    }

    /// A plain PBM (P1) image; 1 is black.
    static func pbm(_ dark: [[Bool]], scale: Int) -> String {
        let width = (dark.map(\.count).max() ?? 0) * scale
        var lines = ["P1", "\(width) \(dark.count * scale)"]
        for row in dark {
            let pixels = row.flatMap { Array(repeating: $0 ? "1" : "0", count: scale) }
                + Array(repeating: "0", count: width - row.count * scale)
            let line = pixels.joined(separator: " ")
            lines.append(contentsOf: Array(repeating: line, count: scale))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
