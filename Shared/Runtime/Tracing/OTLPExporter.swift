import CoreMetrics
import Foundation
package import Logging
package import RPC
import Synchronization

/// Sends sampled spans to an OTLP/gRPC collector (`opentelemetry.proto.collector.trace.v1.
/// TraceService/Export`) over our RPC client, in batches, from a bounded queue.
///
/// A call's span only enters the queue (`record`: a lock and an append); the export runs in
/// `run`, the service's background job. When the queue is full a span is dropped and counted
/// (`rv_trace_spans_dropped_total{reason="queue_full"}`), and a batch the collector does not
/// take is dropped and counted too (`reason="export_failed"`): tracing never slows or fails a call.
package final class OTLPExporter: SpanSink {
    /// Tuning, with OpenTelemetry's batch processor defaults for the sizes.
    package struct Options: Sendable {
        /// Spans waiting to be sent at most; more are dropped.
        package var maxQueueSize = 2048
        /// Spans per Export call at most; a full batch is sent without waiting for the interval.
        package var maxBatchSize = 512
        /// How often a partial batch is sent.
        package var interval: Duration = .seconds(1)
        /// One Export call's deadline.
        package var timeout: Duration = .seconds(5)

        package init() {}
    }

    private let client: RPCClient
    private let resource: OTLP.Resource
    private let options: Options
    private let logger: Logger
    private let droppedFull: CoreMetrics.Counter
    private let droppedFailed: CoreMetrics.Counter
    private let exported: CoreMetrics.Counter

    private struct State {
        var queue: [FinishedSpan] = []
        /// The run loop, parked until a batch fills or the interval passes.
        var waiter: CheckedContinuation<Void, Never>?
        /// A wake-up that came while the loop was not parked.
        var woken = false
        /// Whether the last export failed: a collector that stays down is logged once, not per batch.
        var failing = false
    }

    private let state = Mutex(State())

    /// An exporter to the collector at `host:port`, naming this process `serviceName`.
    package init(host: String, port: Int, serviceName: String, metrics: RuntimeMetrics, logger: Logger,
                 options: Options = Options()) {
        // Its own calls are not traced: they would trace themselves without end.
        self.client = RPCClient(host: host, port: port, tracesCalls: false)
        self.options = options
        self.logger = logger
        self.resource = OTLP.Resource(attributes: [
            OTLPSpan.keyValue("service.name", .stringValue(serviceName)),
            OTLPSpan.keyValue("service.namespace", .stringValue("rendezvous")),
            OTLPSpan.keyValue("service.instance.id", .stringValue(UUID.random().uuidString.lowercased())),
        ])
        self.droppedFull = metrics.makeCounter("rv_trace_spans_dropped_total", dimensions: [("reason", "queue_full")])
        self.droppedFailed = metrics.makeCounter("rv_trace_spans_dropped_total", dimensions: [("reason", "export_failed")])
        self.exported = metrics.makeCounter("rv_trace_spans_exported_total")
    }

    /// Queues `span`, or drops it when the queue is full. Never waits.
    package func record(_ span: FinishedSpan) {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.queue.count < options.maxQueueSize else { return (false, nil) }
            state.queue.append(span)
            guard state.queue.count == options.maxBatchSize else { return (true, nil) }
            return (true, Self.takeWaiter(&state))
        }
        if !accepted { droppedFull.increment() }
        waiter?.resume()
    }

    /// Sends batches until cancelled, then what is left (within one timeout).
    package func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: options.interval)
                    wake()
                }
            }
            while true {
                await parkUntilWoken()
                if Task.isCancelled { break }
                // Exports run in a task of their own: stopping the exporter lets the one under
                // way finish (within its timeout) instead of cancelling its call.
                await Task { await sendQueued() }.value
            }
            group.cancelAll()
        }
        await Task { await flush() }.value
    }

    /// Sends every queued span now.
    package func flush() async {
        await sendQueued()
    }

    /// Closes the connection to the collector.
    package func close() { client.close() }

    private func sendQueued() async {
        while true {
            let batch = state.withLock { state -> [FinishedSpan] in
                let count = min(state.queue.count, options.maxBatchSize)
                defer { state.queue.removeFirst(count) }
                return Array(state.queue.prefix(count))
            }
            guard !batch.isEmpty else { return }
            await export(batch)
        }
    }

    private func export(_ batch: [FinishedSpan]) async {
        let request = OTLP.ExportTraceServiceRequest(resourceSpans: [OTLP.ResourceSpans(
            resource: resource,
            scopeSpans: [OTLP.ScopeSpans(scope: OTLP.InstrumentationScope(name: "rendezvous"), spans: batch.map(OTLPSpan.make))]
        )])
        do {
            let response = try await TraceServiceClient(client: client).export(request, options: CallOptions(timeout: options.timeout))
            let rejected = Int(response.partialSuccess?.rejectedSpans ?? 0)
            exported.increment(by: batch.count - rejected)
            if rejected > 0 { droppedFailed.increment(by: rejected) }
            if state.withLock({ state in defer { state.failing = false }; return state.failing }) {
                logger.info("exporting spans again")
            }
        } catch {
            droppedFailed.increment(by: batch.count)
            if !state.withLock({ state in defer { state.failing = true }; return state.failing }) {
                logger.warning("could not export spans; dropping them until the collector answers",
                               metadata: ["spans": .stringConvertible(batch.count), "error": .string("\(error)")])
            }
        }
    }

    private func wake() {
        state.withLock { state in Self.takeWaiter(&state) }?.resume()
    }

    private static func takeWaiter(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        guard let waiter = state.waiter else {
            state.woken = true
            return nil
        }
        state.waiter = nil
        return waiter
    }

    private func parkUntilWoken() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.woken || Task.isCancelled {
                        state.woken = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
    }
}
