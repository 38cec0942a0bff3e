import Testing
import TestSupport

/// The test ports of `make test`'s shards (TestSupport's LocalPort): side by side, two test
/// processes must never hand out the same port.
@Suite struct LocalPortTests {
    @Test func shards_takeDisjointSlices_belowTheEphemeralRange() {
        let whole = LocalPort.range(below: 32_768, shard: (1, 1))
        #expect(whole == 20_768..<32_768)
        let first = LocalPort.range(below: 32_768, shard: (1, 2))
        let second = LocalPort.range(below: 32_768, shard: (2, 2))
        #expect(first == 20_768..<26_768 && second == 26_768..<32_768)
        #expect(!first.overlaps(second))
        // A range that starts low leaves nothing below it to hand out: the kernel chooses then.
        #expect(LocalPort.range(below: 2_000, shard: (1, 2)).isEmpty)
        #expect(LocalPort.range(below: 10_000, shard: (2, 2)) == 5_512..<10_000)
    }
}
