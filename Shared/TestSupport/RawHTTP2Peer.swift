#if canImport(Glibc)
import Glibc
#endif

/// A hand-driven HTTP/2 client for hostile-peer tests: a blocking loopback socket that writes
/// exactly the frames a test asks for and reads the server's frames one by one.
///
/// Nothing is automatic: no SETTINGS ACK, no WINDOW_UPDATE, no PING reply unless the test
/// sends one. Reads wait on `poll` with a deadline; writes give up after `writeTimeout`.
package final class RawHTTP2Peer {
    /// What a read produced.
    package enum ReadResult {
        case frame(RawHTTP2Frame)
        /// The server closed (EOF or reset).
        case closed
        case timedOut
    }

    /// The client connection preface (RFC 9113 §3.4).
    package static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private var fd: Int32
    private var inbound: [UInt8] = []
    private var inboundOffset = 0
    private var sawEOF = false

    /// Connects to `127.0.0.1:port`.
    package init(port: Int, writeTimeout: Duration = .seconds(5)) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTP2PeerError.system("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let error = errno
            Glibc.close(fd)
            throw RawHTTP2PeerError.system("connect", error)
        }
        var timeout = timeval(tv_sec: Int(writeTimeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
    }

    deinit { close() }

    package func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// Shrinks the kernel receive buffer, so a peer that stops reading stalls the sender sooner.
    package func setReceiveBuffer(bytes: Int32) {
        var size = bytes
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    // MARK: Writing

    /// Writes raw bytes; throws `.closed` once the server has closed the connection.
    package func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
                continue
            }
            switch errno {
            case EINTR: continue
            case EPIPE, ECONNRESET: throw RawHTTP2PeerError.closed
            case EAGAIN: throw RawHTTP2PeerError.writeTimedOut
            default: throw RawHTTP2PeerError.system("send", errno)
            }
        }
    }

    package func write(_ frame: RawHTTP2Frame) throws { try write(frame.encoded) }

    /// The connection preface followed by a SETTINGS frame with `settings`.
    package func sendPreface(settings: [(UInt16, UInt32)] = []) throws {
        try write(Self.preface + Self.settingsFrame(settings).encoded)
    }

    package func sendSettingsAck() throws {
        try write(RawHTTP2Frame(type: RawHTTP2Frame.Kind.settings, flags: RawHTTP2Frame.Flags.ack, streamID: 0))
    }

    /// Sends a header block in one HEADERS frame.
    package func sendHeaders(streamID: UInt32, _ headers: [(String, String)], endStream: Bool = false,
                             endHeaders: Bool = true) throws {
        try write(Self.headersFrame(streamID: streamID, block: HPACKLiteralEncoder.encode(headers),
                                    endStream: endStream, endHeaders: endHeaders))
    }

    package func sendContinuation(streamID: UInt32, block: [UInt8], endHeaders: Bool) throws {
        try write(RawHTTP2Frame(type: RawHTTP2Frame.Kind.continuation,
                                flags: endHeaders ? RawHTTP2Frame.Flags.endHeaders : 0, streamID: streamID, payload: block))
    }

    /// Sends `payload` as DATA frames of at most 16 KiB (the default SETTINGS_MAX_FRAME_SIZE).
    package func sendData(streamID: UInt32, _ payload: [UInt8], endStream: Bool = false) throws {
        var bytes: [UInt8] = []
        var offset = 0
        repeat {
            let end = min(offset + 16_384, payload.count)
            let last = end == payload.count
            bytes += RawHTTP2Frame(type: RawHTTP2Frame.Kind.data, flags: last && endStream ? RawHTTP2Frame.Flags.endStream : 0,
                                   streamID: streamID, payload: Array(payload[offset..<end])).encoded
            offset = end
        } while offset < payload.count
        try write(bytes)
    }

    package func sendRSTStream(streamID: UInt32, errorCode: UInt32 = 0x8) throws {
        try write(Self.rstStreamFrame(streamID: streamID, errorCode: errorCode))
    }

    package func sendPing(_ opaque: [UInt8] = [UInt8](repeating: 0, count: 8), ack: Bool = false) throws {
        try write(RawHTTP2Frame(type: RawHTTP2Frame.Kind.ping, flags: ack ? RawHTTP2Frame.Flags.ack : 0,
                                streamID: 0, payload: opaque))
    }

    package func sendWindowUpdate(streamID: UInt32, increment: UInt32) throws {
        try write(RawHTTP2Frame(type: RawHTTP2Frame.Kind.windowUpdate, streamID: streamID,
                                payload: bigEndianBytes(increment & 0x7fff_ffff)))
    }

    package static func settingsFrame(_ settings: [(UInt16, UInt32)]) -> RawHTTP2Frame {
        var payload: [UInt8] = []
        for (identifier, value) in settings {
            payload += [UInt8(identifier >> 8), UInt8(truncatingIfNeeded: identifier)]
            payload += bigEndianBytes(value)
        }
        return RawHTTP2Frame(type: RawHTTP2Frame.Kind.settings, streamID: 0, payload: payload)
    }

    package static func headersFrame(streamID: UInt32, block: [UInt8], endStream: Bool, endHeaders: Bool) -> RawHTTP2Frame {
        var flags: UInt8 = 0
        if endStream { flags |= RawHTTP2Frame.Flags.endStream }
        if endHeaders { flags |= RawHTTP2Frame.Flags.endHeaders }
        return RawHTTP2Frame(type: RawHTTP2Frame.Kind.headers, flags: flags, streamID: streamID, payload: block)
    }

    package static func rstStreamFrame(streamID: UInt32, errorCode: UInt32) -> RawHTTP2Frame {
        RawHTTP2Frame(type: RawHTTP2Frame.Kind.rstStream, streamID: streamID, payload: bigEndianBytes(errorCode))
    }

    // MARK: Reading

    /// The next frame from the server, waiting at most `timeout`.
    package func readFrame(timeout: Duration = .seconds(5)) -> ReadResult {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let (frame, size) = RawHTTP2Frame.decode(from: inbound, at: inboundOffset) {
                inboundOffset += size
                if inboundOffset > 1 << 20 {
                    inbound.removeFirst(inboundOffset)
                    inboundOffset = 0
                }
                return .frame(frame)
            }
            if sawEOF { return .closed }
            switch fill(until: deadline) {
            case .bytes: continue
            case .closed:
                sawEOF = true
                return .closed
            case .timedOut:
                return .timedOut
            }
        }
    }

    /// Reads frames until `predicate` accepts one (returned), the server closes, or `timeout`
    /// passes; `seen` collects every frame read.
    package func readUntil(timeout: Duration = .seconds(5), seen: inout [RawHTTP2Frame],
                           _ predicate: (RawHTTP2Frame) -> Bool) -> ReadResult {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            let result = readFrame(timeout: left)
            guard case .frame(let frame) = result else { return result }
            seen.append(frame)
            if predicate(frame) { return result }
        }
    }

    /// Reads and discards frames until the server closes; returns the frames, or nil when the
    /// connection was still open after `timeout`.
    package func readUntilClosed(timeout: Duration = .seconds(5)) -> [RawHTTP2Frame]? {
        var seen: [RawHTTP2Frame] = []
        switch readUntil(timeout: timeout, seen: &seen, { _ in false }) {
        case .closed: return seen
        case .frame, .timedOut: return nil
        }
    }

    /// Reads the server's SETTINGS and acknowledges it; returns its entries.
    @discardableResult
    package func acknowledgeServerSettings(timeout: Duration = .seconds(5)) throws -> [(UInt16, UInt32)] {
        var seen: [RawHTTP2Frame] = []
        let result = readUntil(timeout: timeout, seen: &seen) {
            $0.type == RawHTTP2Frame.Kind.settings && !$0.has(RawHTTP2Frame.Flags.ack)
        }
        guard case .frame(let settings) = result else { throw RawHTTP2PeerError.closed }
        try sendSettingsAck()
        return settings.settings
    }

    private enum FillResult {
        case bytes
        case closed
        case timedOut
    }

    /// Appends whatever arrives before `deadline` to the buffer.
    private func fill(until deadline: ContinuousClock.Instant) -> FillResult {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 60_000)))
            let ready = poll(&pollFD, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return .timedOut }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                if inboundOffset == inbound.count {
                    inbound.removeAll(keepingCapacity: true)
                    inboundOffset = 0
                }
                inbound += chunk[0..<count]
                return .bytes
            }
            if count == 0 { return .closed }
            switch errno {
            case EINTR, EAGAIN: continue
            default: return .closed
            }
        }
    }
}

package enum RawHTTP2PeerError: Error, CustomStringConvertible {
    case system(String, Int32)
    /// The server closed the connection.
    case closed
    /// The server stopped reading.
    case writeTimedOut

    package var description: String {
        switch self {
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .closed: return "the server closed the connection"
        case .writeTimedOut: return "the server stopped reading"
        }
    }
}
