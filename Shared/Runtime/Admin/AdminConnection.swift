#if canImport(Glibc)
import Glibc
internal import CLinux
#endif
import HTTP2
import IOLoop

/// One admin request: read the head, answer, close. Loop only, except `respond(with:)`'s hop.
final class AdminConnection: EventLoopHandler, @unchecked Sendable {
    // @unchecked Sendable: every stored property is touched only on `loop`; the routing task
    // hands its response back through `loop.execute`.
    private let fd: Int32
    private let loop: EventLoop
    private let routes: AdminRoutes
    private let readTimeout: Duration
    var onClose: (() -> Void)?

    private enum State {
        case reading([UInt8])
        case routing(omitBody: Bool)
        case writing([UInt8], sent: Int)
        case closed
    }

    private var state = State.reading([])
    private var timer: TimerID?

    init(fd: Int32, loop: EventLoop, routes: AdminRoutes, readTimeout: Duration) {
        self.fd = fd
        self.loop = loop
        self.routes = routes
        self.readTimeout = readTimeout
    }

    func start() {
        do {
            try loop.register(fd: fd, events: EPOLLIN.rawValue, handler: self)
        } catch {
            Glibc.close(fd)
            state = .closed
            onClose?()
            return
        }
        let (seconds, attoseconds) = readTimeout.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        timer = loop.scheduleTimer(afterNanoseconds: nanoseconds) { [weak self] in self?.timedOut() }
    }

    func handleEvents(_ events: UInt32) {
        switch state {
        case .reading(var buffer):
            if !readAvailable(into: &buffer) {
                close()
                return
            }
            switch AdminRequestHead.parse(buffer) {
            case .incomplete:
                state = .reading(buffer)
                if events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { close() }
            case .tooLarge:
                write(AdminResponse(status: 431, body: "request head too large\n").serialized())
            case .malformed:
                write(AdminResponse(status: 400, body: "bad request\n").serialized())
            case .complete(let request):
                route(request)
            }
        case .routing:
            // Input is no longer watched; epoll still reports hang-ups and errors.
            if events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { close() }
        case .writing:
            if events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                close()
            } else {
                flush()
            }
        case .closed:
            break
        }
    }

    /// Appends what the socket has; false on end of stream or error.
    private func readAvailable(into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.count < AdminRequestHead.maxHeadBytes + 4 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                return false
            } else {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
        }
        return true
    }

    private func route(_ request: AdminRequestHead) {
        let omitBody = request.method == "HEAD"
        state = .routing(omitBody: omitBody)
        loop.modify(fd: fd, events: 0)
        let routes = self.routes
        let loop = self.loop
        Task {
            let response = await routes.respond(to: request)
            loop.execute { self.respond(with: response) }
        }
    }

    private func respond(with response: AdminResponse) {
        guard case .routing(let omitBody) = state else { return }
        write(response.serialized(omitBody: omitBody))
    }

    private func write(_ bytes: [UInt8]) {
        state = .writing(bytes, sent: 0)
        flush()
    }

    private func flush() {
        guard case .writing(let bytes, var sent) = state else { return }
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                // Safe: `sent` < `bytes.count`.
                send(fd, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count >= 0 {
                sent += count
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                state = .writing(bytes, sent: sent)
                loop.modify(fd: fd, events: EPOLLOUT.rawValue)
                return
            } else {
                close()
                return
            }
        }
        shutdown(fd, Int32(SHUT_WR))
        close()
    }

    private func timedOut() {
        timer = nil
        if case .reading = state {
            // Best effort: one non-blocking send, then close whatever happened.
            let bytes = AdminResponse(status: 408, body: "request timeout\n").serialized()
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        close()
    }

    func close() {
        if case .closed = state { return }
        state = .closed
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        loop.deregister(fd: fd)
        // Drain what the client sent past the head so close(2) does not answer it with a reset.
        var scratch = [UInt8](repeating: 0, count: 1024)
        for _ in 0..<16 {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count <= 0 { break }
        }
        Glibc.close(fd)
        onClose?()
        onClose = nil
    }
}
