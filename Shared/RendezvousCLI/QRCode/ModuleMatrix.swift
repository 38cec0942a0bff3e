/// The symbol while it is being built: dark modules, and which modules belong to function
/// patterns (finders, separators, timing, alignment, format and version information) and so
/// never carry data or take the mask. Coordinates are column `x`, row `y` from the top left.
struct ModuleMatrix: Sendable {
    let version: Int
    let size: Int
    private(set) var dark: [Bool]
    private var isFunction: [Bool]

    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        dark = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
    }

    subscript(x: Int, y: Int) -> Bool { dark[y * size + x] }

    private mutating func setFunction(_ x: Int, _ y: Int, _ isDark: Bool) {
        dark[y * size + x] = isDark
        isFunction[y * size + x] = true
    }

    // MARK: Function patterns (section 6.3)

    /// Everything but the data: finders with separators, timing patterns, alignment patterns,
    /// reserved format areas (drawn with a placeholder mask), version information, dark module.
    mutating func drawFunctionPatterns() {
        for index in 0..<size {
            setFunction(6, index, index % 2 == 0)
            setFunction(index, 6, index % 2 == 0)
        }
        drawFinder(centerX: 3, centerY: 3)
        drawFinder(centerX: size - 4, centerY: 3)
        drawFinder(centerX: 3, centerY: size - 4)
        let positions = Self.alignmentPositions(version: version)
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                let last = positions.count - 1
                // The three corners that hold finder patterns get none.
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignment(centerX: x, centerY: y)
            }
        }
        drawFormatBits(correction: .medium, mask: 0)
        drawVersionBits()
    }

    /// A 7×7 finder with its light separator (cut off at the symbol's edge).
    private mutating func drawFinder(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx, y = centerY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let distance = max(abs(dx), abs(dy))
                setFunction(x, y, distance != 2 && distance != 4)
            }
        }
    }

    private mutating func drawAlignment(centerX: Int, centerY: Int) {
        for dy in -2...2 {
            for dx in -2...2 { setFunction(centerX + dx, centerY + dy, max(abs(dx), abs(dy)) != 1) }
        }
    }

    /// The rows and columns of alignment pattern centres (Annex E): 6, then evenly spaced
    /// (an even step) up to `size − 7`.
    static func alignmentPositions(version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = (version * 8 + count * 3 + 5) / (count * 4 - 4) * 2
        let size = 17 + 4 * version
        var result = [6]
        for index in 0..<(count - 1) { result.insert(size - 7 - index * step, at: 1) }
        return result
    }

    /// The 15 format bits (level and mask, BCH(15,5), XOR 0x5412), twice, and the dark module (section 7.9).
    mutating func drawFormatBits(correction: QRCode.Correction, mask: Int) {
        let data = correction.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { setFunction(8, index, bit(index)) }
        setFunction(8, 7, bit(6))
        setFunction(8, 8, bit(7))
        setFunction(7, 8, bit(8))
        for index in 9..<15 { setFunction(14 - index, 8, bit(index)) }
        for index in 0..<8 { setFunction(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { setFunction(8, size - 15 + index, bit(index)) }
        setFunction(8, size - 8, true)
    }

    /// The 18 version bits (BCH(18,6)) in two 6×3 blocks, from version 7 (section 7.10).
    private mutating func drawVersionBits() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let isDark = (bits >> index) & 1 == 1
            let a = size - 11 + index % 3, b = index / 3
            setFunction(a, b, isDark)
            setFunction(b, a, isDark)
        }
    }

    // MARK: Data (section 7.7.3)

    /// Places the codewords' bits in two-module columns, zigzagging up and down from the
    /// bottom right and skipping the vertical timing column; remainder bits stay light.
    mutating func drawCodewords(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<size {
                for column in 0..<2 {
                    let x = right - column
                    let y = upward ? size - 1 - vertical : vertical
                    guard !isFunction[y * size + x], bitIndex < totalBits else { continue }
                    dark[y * size + x] = (codewords[bitIndex >> 3] >> (7 - UInt8(bitIndex & 7))) & 1 == 1
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }

    /// XORs data mask pattern `mask` (Table 10) over every non-function module.
    mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && Self.maskInverts(mask, x: x, y: y) {
                dark[y * size + x].toggle()
            }
        }
    }

    /// Whether mask `mask` inverts the module at column `x`, row `y` (i = row, j = column in the spec).
    static func maskInverts(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (y + x) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (y + x) % 3 == 0
        case 4: (y / 2 + x / 3) % 2 == 0
        case 5: (y * x) % 2 + (y * x) % 3 == 0
        case 6: ((y * x) % 2 + (y * x) % 3) % 2 == 0
        default: ((y + x) % 2 + (y * x) % 3) % 2 == 0
        }
    }
}
