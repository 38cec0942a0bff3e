extension Array {
    /// Makes room for `count` more elements while keeping geometric growth.
    ///
    /// `reserveCapacity(self.count + n)` allocates exactly, so calling it before every small
    /// append (one packed run, one frame) copies the whole array each time: quadratic.
    @inline(__always)
    mutating func reserveAdditionalCapacity(_ count: Int) {
        let needed = self.count + count
        if needed > capacity {
            reserveCapacity(Swift.max(needed, capacity * 2))
        }
    }
}
