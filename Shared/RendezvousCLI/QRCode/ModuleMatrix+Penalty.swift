extension ModuleMatrix {
    /// The mask evaluation score of section 7.8.3 (Table 11): N1 = 3 for runs, N2 = 3 for 2×2
    /// blocks, N3 = 40 for finder-like patterns, N4 = 10 for the dark share. Lower is better.
    func penalty() -> Int {
        var total = 0
        for index in 0..<size {
            let row = (0..<size).map { self[$0, index] }
            let column = (0..<size).map { self[index, $0] }
            total += Self.runPenalty(row) + Self.runPenalty(column)
            total += Self.finderLikePenalty(row) + Self.finderLikePenalty(column)
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = self[x, y]
                if colour == self[x + 1, y] && colour == self[x, y + 1] && colour == self[x + 1, y + 1] { total += 3 }
            }
        }
        let darkCount = dark.reduce(0) { $0 + ($1 ? 1 : 0) }
        let cells = size * size
        // Each full 5 % step away from half dark costs 10.
        total += abs(darkCount * 20 - cells * 10) / cells * 10
        return total
    }

    /// N1 + (length − 5) for each run of five or more same-coloured modules in a line.
    static func runPenalty(_ line: [Bool]) -> Int {
        var total = 0
        var runLength = 0
        var previous: Bool?
        for module in line {
            if module == previous {
                runLength += 1
            } else {
                if runLength >= 5 { total += 3 + runLength - 5 }
                previous = module
                runLength = 1
            }
        }
        if runLength >= 5 { total += 3 + runLength - 5 }
        return total
    }

    /// N3 for each dark-light-dark×3-light-dark (1:1:3:1:1) with four light modules before or
    /// after it; beyond the symbol counts as light (the quiet zone).
    static func finderLikePenalty(_ line: [Bool]) -> Int {
        let pattern = [true, false, true, true, true, false, true]
        func isLight(_ range: Range<Int>) -> Bool {
            range.allSatisfy { $0 < 0 || $0 >= line.count || !line[$0] }
        }
        var total = 0
        for start in 0...(line.count - pattern.count) where pattern.indices.allSatisfy({ line[start + $0] == pattern[$0] }) {
            if isLight((start - 4)..<start) || isLight((start + 7)..<(start + 11)) { total += 40 }
        }
        return total
    }
}
