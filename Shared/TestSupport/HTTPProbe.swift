package import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw-socket HTTP/1.1 client for the admin listener: sends bytes, reads until the server closes.
/// Each exchange runs on its own thread: blocking I/O must not occupy the cooperative pool
/// (nor Dispatch's global queues, which share its threads on Linux).
package enum HTTPProbe {
    /// A parsed HTTP/1.1 response.
    package struct Response: Sendable {
        package var status: Int
        package var headers: [String: String]
        package var body: String
    }

    /// Sends one request for `path` and returns the response the server closes after.
    package static func get(_ path: String, port: Int, method: String = "GET", timeoutSeconds: Int = 10) async throws -> Response {
        try await exchange("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: probe\r\n\r\n", port: port,
                           timeoutSeconds: timeoutSeconds)
    }

    /// Sends `request` verbatim (possibly incomplete) and parses whatever comes back before close.
    package static func exchange(_ request: String, port: Int, timeoutSeconds: Int = 10) async throws -> Response {
        let raw = try await rawExchange(Array(request.utf8), port: port, timeoutSeconds: timeoutSeconds)
        return try parse(raw)
    }

    /// Sends `request` and returns every byte received until the server closes.
    package static func rawExchange(_ request: [UInt8], port: Int, timeoutSeconds: Int = 10) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try blockingExchange(request, port: port, timeoutSeconds: timeoutSeconds) })
            }
            thread.start()
        }
    }

    private static func blockingExchange(_ request: [UInt8], port: Int, timeoutSeconds: Int) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProbeError("socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ProbeError("connect to \(port) failed: errno \(errno)") }
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw ProbeError("send failed: errno \(errno)") }
            sent += count
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                response += chunk[0..<count]
            } else if count == 0 {
                return response
            } else {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return response }
                throw ProbeError("recv failed: errno \(errno)")
            }
        }
    }

    /// The status line, headers and body of `raw`.
    package static func parse(_ raw: [UInt8]) throws -> Response {
        let text = String(decoding: raw, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw ProbeError("no complete response: \(text)") }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else {
            throw ProbeError("bad status line: \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: String(text[split.upperBound...]))
    }
}

/// A failed probe, saying which step failed.
package struct ProbeError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
