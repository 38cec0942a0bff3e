import RPC
import Synchronization

/// Trace and span ids without a system call per span: random per-process seeds and a counter,
/// mixed by SplitMix64 (a bijection, so ids never repeat within a process and look random
/// across processes).
enum SpanIDGenerator {
    private static let seeds: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    private static let counter = Atomic<UInt64>(0)

    /// A new, non-zero span id.
    static func nextSpanID() -> SpanID {
        while true {
            let value = mix(counter.add(1, ordering: .relaxed).newValue &+ seeds.0)
            if value != 0 { return SpanID(value) }
        }
    }

    /// A new, non-zero trace id.
    static func nextTraceID() -> TraceID {
        while true {
            let count = counter.add(1, ordering: .relaxed).newValue
            let id = TraceID(high: mix(count ^ seeds.1), low: mix(count &+ seeds.0))
            if !id.isZero { return id }
        }
    }

    /// SplitMix64's output function.
    private static func mix(_ input: UInt64) -> UInt64 {
        var z = input &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
