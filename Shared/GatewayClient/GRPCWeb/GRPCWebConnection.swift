import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RPCCore
import Synchronization

/// The gateway client's calls as gRPC-Web (`application/grpc-web+proto`, doc/PROTOCOL-WEB.md)
/// over `URLSession`, which does not hand HTTP/2 trailers to apps: the status travels as the
/// body's last frame instead. One session for every call; its delegate hands each task's
/// response to the call that made it.
final class GRPCWebConnection: GatewayConnection {
    /// `scheme://host:port`, the paths appended to it.
    let baseURL: String
    let session: URLSession
    let maxReceiveMessageSize: Int
    private let router: GRPCWebTaskRouter

    init(baseURL: String, sessionConfiguration: URLSessionConfiguration, maxReceiveMessageSize: Int = 4 << 20) {
        self.baseURL = baseURL
        self.maxReceiveMessageSize = maxReceiveMessageSize
        let router = GRPCWebTaskRouter()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.router = router
        self.session = URLSession(configuration: sessionConfiguration, delegate: router, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    /// Each call's requests go as one body before its response begins.
    var carriesBidirectionalStreams: Bool { false }

    func openStream(path: String, kind: CallKind, options: CallOptions) async throws -> any ClientStream {
        guard kind.isHalfDuplex else {
            throw RPCError(code: .unimplemented,
                           message: "\(path) is a bidirectional stream, which gRPC-Web over URLSession cannot carry: use the HTTP/2 transport")
        }
        guard !router.isClosed else { throw RPCError(code: .unavailable, message: "the client is closed") }
        guard let url = URL(string: baseURL + path) else {
            throw RPCError(code: .invalidArgument, message: "not a valid URL: \(baseURL)\(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/grpc-web+proto", forHTTPHeaderField: "content-type")
        request.setValue("application/grpc-web+proto", forHTTPHeaderField: "accept")
        request.setValue("1", forHTTPHeaderField: "x-grpc-web")
        request.setValue("rendezvous-swift-grpc-web/1.0", forHTTPHeaderField: "x-user-agent")
        if let timeout = options.timeout {
            request.setValue(GRPCTimeout.encode(nanoseconds: GRPCTimeout.nanoseconds(timeout)), forHTTPHeaderField: "grpc-timeout")
            // URLSession's timeout is an idle timeout; the call's own timer enforces the deadline.
            request.timeoutInterval = max(1, Self.seconds(timeout) + 5)
        } else {
            // A stream may be quiet for long (no events): no idle timeout short of a day.
            request.timeoutInterval = 86_400
        }
        for field in options.metadata.headerFields {
            request.addValue(field.value, forHTTPHeaderField: field.name)
        }
        return GRPCWebCall(request: request, timeout: options.timeout, maxReceiveMessageSize: maxReceiveMessageSize,
                           connection: self)
    }

    func download(_ target: String, timeout: Duration) async throws -> DownloadResponse {
        guard !router.isClosed else { throw RPCError(code: .unavailable, message: "the client is closed") }
        guard let url = URL(string: baseURL + target) else {
            throw RPCError(code: .invalidArgument, message: "not a valid URL: \(baseURL)\(target)")
        }
        var request = URLRequest(url: url)
        request.timeoutInterval = max(1, Self.seconds(timeout))
        let collector = GRPCWebDownload()
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                collector.start(continuation)
                router.register(collector, for: task)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func close() {
        router.close()
        session.invalidateAndCancel()
    }

    func register(_ call: any GRPCWebTaskHandler, for task: URLSessionTask) { router.register(call, for: task) }

    func unregister(_ task: URLSessionTask) { router.unregister(task) }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// What the session's delegate feeds: one task's response head, body pieces and end.
protocol GRPCWebTaskHandler: AnyObject, Sendable {
    /// Whether to go on receiving the body.
    func didReceive(_ response: HTTPURLResponse) -> Bool
    func didReceive(_ data: Data)
    func didComplete(error: (any Error)?)
}

extension GRPCWebCall: GRPCWebTaskHandler {}

/// The session's delegate: finds each task's handler by task identifier, and gives it the
/// response head once, before any of the body: from the response callback, or from the task
/// when the body or the end comes first (a platform whose callback signature differs, say in
/// its closure's `@Sendable`, would not call ours).
final class GRPCWebTaskRouter: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var handlers: [Int: any GRPCWebTaskHandler] = [:]
        var responded: Set<Int> = []
        var closed = false
    }

    private let state = Mutex(State())

    var isClosed: Bool { state.withLock { $0.closed } }

    func register(_ handler: any GRPCWebTaskHandler, for task: URLSessionTask) {
        state.withLock { $0.handlers[task.taskIdentifier] = handler }
    }

    func unregister(_ task: URLSessionTask) {
        state.withLock { state in
            state.handlers.removeValue(forKey: task.taskIdentifier)
            state.responded.remove(task.taskIdentifier)
        }
    }

    /// Ends every call in progress with UNAVAILABLE.
    func close() {
        let handlers = state.withLock { state in
            state.closed = true
            state.responded.removeAll()
            defer { state.handlers.removeAll() }
            return Array(state.handlers.values)
        }
        for handler in handlers { handler.didComplete(error: URLError(.cancelled)) }
    }

    /// The task's handler after it has had the response head; nil when there is none or it
    /// refused the head (then the task is cancelled).
    private func respondedHandler(_ task: URLSessionTask, response: URLResponse?) -> (any GRPCWebTaskHandler)? {
        let (handler, first) = state.withLock { state -> ((any GRPCWebTaskHandler)?, Bool) in
            guard let handler = state.handlers[task.taskIdentifier] else { return (nil, false) }
            return (handler, state.responded.insert(task.taskIdentifier).inserted)
        }
        guard let handler else { return nil }
        guard first else { return handler }
        // Without an HTTP response the end decides (a body without a status is INTERNAL).
        guard let response = response as? HTTPURLResponse else { return handler }
        guard handler.didReceive(response) else {
            unregister(task)
            task.cancel()
            return nil
        }
        return handler
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        completionHandler(respondedHandler(dataTask, response: response) == nil ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        respondedHandler(dataTask, response: dataTask.response)?.didReceive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let handler = error == nil ? respondedHandler(task, response: task.response) : nil
        let registered = state.withLock { state in
            state.responded.remove(task.taskIdentifier)
            return state.handlers.removeValue(forKey: task.taskIdentifier)
        }
        (handler ?? registered)?.didComplete(error: error)
    }
}
