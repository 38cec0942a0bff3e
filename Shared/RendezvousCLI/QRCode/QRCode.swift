/// A QR code symbol (ISO/IEC 18004:2015) holding bytes in byte mode: the module matrix, its
/// version and error correction level, and the mask that scored lowest.
///
/// ```swift
/// let code = try QRCode.encode(Array("momento://join/7KQ2XM".utf8), correction: .medium)
/// print(code.terminalRendering())
/// ```
struct QRCode: Sendable, Equatable {
    /// How much of the symbol can be damaged and still read (section 5.3.8).
    enum Correction: String, Sendable, CaseIterable {
        case low = "L", medium = "M", quartile = "Q", high = "H"

        /// The two bits the format information carries for this level (Table 12).
        var formatBits: Int {
            switch self {
            case .low: 1
            case .medium: 0
            case .quartile: 3
            case .high: 2
            }
        }

        /// Index into the capacity tables.
        var tableIndex: Int {
            switch self {
            case .low: 0
            case .medium: 1
            case .quartile: 2
            case .high: 3
            }
        }
    }

    /// The payload does not fit any allowed version at this correction level.
    struct TooLong: Error, CustomStringConvertible {
        var byteCount: Int
        var capacity: Int
        var description: String { "\(byteCount) bytes do not fit a QR code (at most \(capacity) at this correction level)" }
    }

    /// 1-40; the symbol is `17 + 4 × version` modules on a side.
    let version: Int
    let correction: Correction
    /// 0-7, the data mask pattern applied (section 7.8.2).
    let mask: Int
    let size: Int
    /// Row-major, `true` for a dark module.
    let modules: [Bool]

    /// Whether the module at column `x`, row `y` is dark.
    func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// Encodes `bytes` in byte mode in the smallest version (from `minimumVersion`) that holds
    /// them at `correction`, trying all eight masks and keeping the one with the lowest penalty
    /// (or `forcedMask`, for tests of each pattern).
    static func encode(_ bytes: [UInt8], correction: Correction = .medium, minimumVersion: Int = 1,
                       forcedMask: Int? = nil) throws -> QRCode {
        let start = min(max(minimumVersion, 1), 40)
        guard let version = (start...40).first(where: { bytes.count <= byteCapacity(version: $0, correction: correction) }) else {
            throw TooLong(byteCount: bytes.count, capacity: byteCapacity(version: 40, correction: correction))
        }
        let codewords = addErrorCorrection(to: dataCodewords(bytes, version: version, correction: correction),
                                           version: version, correction: correction)
        var matrix = ModuleMatrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.drawCodewords(codewords)
        var chosen = (mask: 0, penalty: Int.max, matrix: matrix)
        for mask in forcedMask.map({ [$0] }) ?? Array(0..<8) {
            var candidate = matrix
            candidate.applyMask(mask)
            candidate.drawFormatBits(correction: correction, mask: mask)
            let penalty = candidate.penalty()
            if penalty < chosen.penalty { chosen = (mask, penalty, candidate) }
        }
        return QRCode(version: version, correction: correction, mask: chosen.mask, size: chosen.matrix.size,
                      modules: chosen.matrix.dark)
    }

    /// The most bytes byte mode holds in `version` at `correction`: data codewords less the
    /// 4-bit mode indicator and the character count (8 bits to version 9, 16 from 10).
    static func byteCapacity(version: Int, correction: Correction) -> Int {
        let countBits = version <= 9 ? 8 : 16
        return (dataCodewordCount(version: version, correction: correction) * 8 - 4 - countBits) / 8
    }

    /// Mode indicator, count, the bytes, terminator, and pad codewords 0xEC 0x11 (section 7.4).
    static func dataCodewords(_ bytes: [UInt8], version: Int, correction: Correction) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: version <= 9 ? 8 : 16)
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacityBits = dataCodewordCount(version: version, correction: correction) * 8
        bits.append(0, count: min(4, capacityBits - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count * 8 < capacityBits {
            codewords.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        return codewords
    }

    /// Splits the data into the version's blocks, appends each block's Reed–Solomon codewords,
    /// and interleaves them (section 7.5.2, 7.6).
    static func addErrorCorrection(to data: [UInt8], version: Int, correction: Correction) -> [UInt8] {
        let blockCount = Tables.blockCount[correction.tableIndex][version]
        let eccLength = Tables.eccCodewordsPerBlock[correction.tableIndex][version]
        let rawCodewords = rawDataModuleCount(version: version) / 8
        let shortBlocks = blockCount - rawCodewords % blockCount
        let shortBlockLength = rawCodewords / blockCount
        let divisor = ReedSolomon.divisor(degree: eccLength)
        var blocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<blockCount {
            let dataLength = shortBlockLength - eccLength + (index < shortBlocks ? 0 : 1)
            var block = Array(data[offset..<offset + dataLength])
            offset += dataLength
            let ecc = ReedSolomon.remainder(of: block, divisor: divisor)
            // Short blocks get a placeholder where long blocks have their extra data codeword.
            if index < shortBlocks { block.append(0) }
            blocks.append(block + ecc)
        }
        var result: [UInt8] = []
        result.reserveCapacity(rawCodewords)
        for position in 0..<blocks[0].count {
            for (index, block) in blocks.enumerated() where position != shortBlockLength - eccLength || index >= shortBlocks {
                result.append(block[position])
            }
        }
        return result
    }

    /// Data codewords (without error correction) of `version` at `correction`.
    static func dataCodewordCount(version: Int, correction: Correction) -> Int {
        rawDataModuleCount(version: version) / 8
            - Tables.eccCodewordsPerBlock[correction.tableIndex][version] * Tables.blockCount[correction.tableIndex][version]
    }

    /// Modules left for codewords once the function patterns, format and version information
    /// are drawn (remainder bits included).
    static func rawDataModuleCount(version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            result -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }
}

/// Bits appended most significant first, read out as bytes.
struct BitBuffer {
    private(set) var bits: [Bool] = []
    var count: Int { bits.count }

    mutating func append(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }

    /// The bits as bytes; the count must be a multiple of 8.
    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
    }
}
