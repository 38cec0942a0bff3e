import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RPCCore
import Synchronization

/// One gRPC-Web call on `URLSession`: the request messages are framed into one body, sent when
/// the request side is closed (HTTP/1.1 and `URLSession` have no full duplex), and the response
/// body is split into messages and the final trailers frame as it arrives, fed by the session's
/// delegate. Bidirectional calls are refused before one is made (`GRPCWebConnection`).
final class GRPCWebCall: ClientStream, Sendable {
    private struct State {
        var body: [UInt8] = []
        var started = false
        var task: URLSessionDataTask?
        var deadline: Task<Void, Never>?
        var initialMetadata = Metadata()
        /// A trailers-only response's status, carried in the headers.
        var headerStatus: RPCError?
        /// The status of the trailers frame.
        var trailerStatus: RPCError?
        var deframer: GRPCWebDeframer
        var received: [[UInt8]] = []
        var head = 0
        /// The final status, once the call ended.
        var status: RPCError?
        var reader: CheckedContinuation<[UInt8]?, any Error>?
        var statusWaiters: [CheckedContinuation<RPCError, Never>] = []

        mutating func takeReceived() -> [UInt8]? {
            guard head < received.count else { return nil }
            let message = received[head]
            head += 1
            if head == received.count {
                received.removeAll(keepingCapacity: true)
                head = 0
            }
            return message
        }
    }

    let maxReceiveMessageSize: Int
    private let request: URLRequest
    private let timeout: Duration?
    private let connection: GRPCWebConnection
    private let state: Mutex<State>

    init(request: URLRequest, timeout: Duration?, maxReceiveMessageSize: Int, connection: GRPCWebConnection) {
        self.request = request
        self.timeout = timeout
        self.maxReceiveMessageSize = maxReceiveMessageSize
        self.connection = connection
        self.state = Mutex(State(deframer: GRPCWebDeframer(maxMessageSize: maxReceiveMessageSize)))
    }

    // MARK: ClientStream

    var initialMetadata: Metadata { state.withLock { $0.initialMetadata } }

    func send(_ message: [UInt8], end: Bool) async throws {
        let failed = state.withLock { state -> RPCError? in
            if let status = state.status { return status }
            guard !state.started else { return RPCError(code: .internal, message: "a message after the request was closed") }
            state.body += GRPCWebFrame.encodeMessage(message)
            return nil
        }
        if let failed { throw failed }
        if end { start() }
    }

    func finishSending() { start() }

    func cancel() {
        settle(RPCError(code: .cancelled, message: "cancelled by the client"), keepingReceived: false)
    }

    func status() async -> RPCError {
        if let status = state.withLock({ $0.status }) { return status }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> RPCError? in
                if let status = state.status { return status }
                state.statusWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func next() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<[UInt8]?, any Error>? in
                if let message = state.takeReceived() { return .success(message) }
                if let status = state.status { return status.code == .ok ? .success(nil) : .failure(status) }
                state.reader = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    func nextIfReceived() -> [UInt8]? { state.withLock { $0.takeReceived() } }

    // MARK: Sending

    /// Sends the request with the body framed so far, once; the deadline starts with it.
    private func start() {
        let body = state.withLock { state -> [UInt8]? in
            guard !state.started, state.status == nil else { return nil }
            state.started = true
            return state.body
        }
        guard let body else { return }
        var request = request
        request.httpBody = Data(body)
        let task = connection.session.dataTask(with: request)
        connection.register(self, for: task)
        let deadline = timeout.map { timeout in
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                self?.settle(RPCError(code: .deadlineExceeded, message: "deadline exceeded"), keepingReceived: false)
            }
        }
        let settled = state.withLock { state -> Bool in
            state.task = task
            state.deadline = deadline
            state.body = []
            return state.status != nil
        }
        if settled {
            deadline?.cancel()
            connection.unregister(task)
            return
        }
        task.resume()
    }

    // MARK: Receiving (the session's delegate queue)

    /// The response head: anything but 200 with a gRPC-Web content type ends the call (HTTP
    /// statuses as gRPC's HTTP-to-status table maps them), unless it carries a gRPC status.
    func didReceive(_ response: HTTPURLResponse) -> Bool {
        let fields = response.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name.lowercased(), value)
        }
        let grpcStatus = fields.contains { $0.name == "grpc-status" } ? RPCError(trailerFields: fields) : nil
        if response.statusCode != 200 {
            settle(grpcStatus ?? RPCError(code: StatusCode(httpStatus: response.statusCode),
                                          message: "HTTP status \(response.statusCode)"), keepingReceived: false)
            return false
        }
        let contentType = fields.first { $0.name == "content-type" }?.value ?? ""
        guard GRPCContentType.wireFormat(of: contentType)?.format == .web else {
            settle(grpcStatus ?? RPCError(code: .unknown, message: "the response is not gRPC-Web (\(contentType))"), keepingReceived: false)
            return false
        }
        state.withLock { state in
            state.initialMetadata = Metadata(headerFields: fields)
            state.headerStatus = grpcStatus
        }
        return true
    }

    func didReceive(_ data: Data) {
        var failure: RPCError?
        let reader = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>, [UInt8])? in
            guard state.status == nil else { return nil }
            state.deframer.append(data)
            do {
                while let frame = try state.deframer.next() {
                    switch frame {
                    case .message(let payload):
                        guard state.trailerStatus == nil else {
                            failure = RPCError(code: .internal, message: "a message after the trailers")
                            return nil
                        }
                        state.received.append(payload)
                    case .trailers(let fields):
                        state.trailerStatus = RPCError(trailerFields: fields.map { (name: $0.name, value: $0.value) })
                    }
                }
            } catch {
                if case .messageTooLarge = error as? GRPCWebDeframer.Failure {
                    failure = RPCError(code: .resourceExhausted, message: "response message larger than \(maxReceiveMessageSize) bytes")
                } else {
                    failure = RPCError(code: .internal, message: "malformed gRPC-Web response framing")
                }
                return nil
            }
            guard let reader = state.reader, let message = state.takeReceived() else { return nil }
            state.reader = nil
            return (reader, message)
        }
        if let failure { settle(failure, keepingReceived: false) }
        if let (reader, message) = reader { reader.resume(returning: message) }
    }

    /// The response ended: its status is the trailers frame's (or, for a trailers-only
    /// response, the headers'); a transport failure maps to UNAVAILABLE or DEADLINE_EXCEEDED.
    func didComplete(error: (any Error)?) {
        if let error {
            let code: StatusCode = (error as? URLError)?.code == .timedOut ? .deadlineExceeded : .unavailable
            settle(RPCError(code: code, message: "the request failed: \(error.localizedDescription)"), keepingReceived: false)
            return
        }
        let status = state.withLock { state -> RPCError in
            do {
                try state.deframer.finish()
            } catch {
                return RPCError(code: .internal, message: "the response ended inside a message")
            }
            return state.trailerStatus ?? state.headerStatus
                ?? RPCError(code: .internal, message: "the server ended the response without a status")
        }
        settle(status, keepingReceived: true)
    }

    // MARK: Completion

    /// Records the final status unless the call already ended; a status the server sent
    /// (`keepingReceived`) lets the messages before it be read first. Ends the task otherwise.
    private func settle(_ status: RPCError, keepingReceived: Bool) {
        let ended = state.withLock { state -> (reader: CheckedContinuation<[UInt8]?, any Error>?,
                                                 waiters: [CheckedContinuation<RPCError, Never>],
                                                 task: URLSessionDataTask?, deadline: Task<Void, Never>?)? in
            guard state.status == nil else { return nil }
            state.status = status
            if !keepingReceived {
                state.received.removeAll()
                state.head = 0
            }
            let reader = state.received.count > state.head ? nil : state.reader
            if reader != nil { state.reader = nil }
            let waiters = state.statusWaiters
            state.statusWaiters.removeAll()
            return (reader, waiters, state.task, state.deadline)
        }
        guard let ended else { return }
        ended.deadline?.cancel()
        if let task = ended.task {
            connection.unregister(task)
            if !keepingReceived { task.cancel() }
        }
        if let reader = ended.reader {
            if status.code == .ok { reader.resume(returning: nil) } else { reader.resume(throwing: status) }
        }
        for waiter in ended.waiters { waiter.resume(returning: status) }
    }
}
