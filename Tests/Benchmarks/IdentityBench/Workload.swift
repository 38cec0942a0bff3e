import Contracts
import RPC

/// One kind of request the benchmark repeats. `start` readies one stream (signs in, say) before
/// the clock starts; the stream's `step` is then timed over and over.
struct Workload: Sendable {
    let name: String
    /// Password hashing is slow by design: measured apart, at fewer streams.
    let isHashing: Bool
    let start: @Sendable (_ client: IdentityClient, _ stream: Int) async throws -> any BenchStream

    init(_ name: String, isHashing: Bool = false,
         start: @escaping @Sendable (_ client: IdentityClient, _ stream: Int) async throws -> any BenchStream) {
        self.name = name
        self.isHashing = isHashing
        self.start = start
    }
}

/// One stream's state and its request; owned by one task, so `step` may change it.
protocol BenchStream: Sendable {
    mutating func step() async throws
}

/// A step that needs no state between requests.
struct StatelessStream: BenchStream {
    let body: @Sendable () async throws -> Void

    mutating func step() async throws { try await body() }
}
