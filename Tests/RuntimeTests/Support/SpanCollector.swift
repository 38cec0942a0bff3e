import RPC
import Runtime
import Synchronization

/// Keeps every span a tracer hands it, for assertions.
final class SpanCollector: SpanSink {
    private let storage = Mutex<[FinishedSpan]>([])

    var spans: [FinishedSpan] { storage.withLock { $0 } }

    func record(_ span: FinishedSpan) { storage.withLock { $0.append(span) } }

    func flush() async {}

    /// The spans of one trace.
    func spans(inTrace traceID: TraceID) -> [FinishedSpan] { spans.filter { $0.context.traceID == traceID } }

    /// Waits until `count` spans of the trace ended (server spans end just after the client saw the response).
    func waitForSpans(inTrace traceID: TraceID, count: Int) async throws -> [FinishedSpan] {
        for _ in 0..<200 {
            let found = spans(inTrace: traceID)
            if found.count >= count { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        return spans(inTrace: traceID)
    }
}
