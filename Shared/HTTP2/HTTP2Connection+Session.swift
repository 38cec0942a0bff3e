internal import CNGHTTP2
import IOLoop

/// nghttp2 session setup and its callbacks. Callbacks are non-capturing closures that find
/// their connection through `user_data`; they never throw across C: a failure is stored in
/// `callbackFailure` and reported to nghttp2 as a failure code.
extension HTTP2Connection {
    func startSession() throws {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw SocketError.system("nghttp2_session_callbacks_new", 12)
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            HTTP2Connection.from(userData).onBeginHeaders(frame!.pointee)
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, userData in
            HTTP2Connection.from(userData).onHeader(
                streamID: frame!.pointee.hd.stream_id,
                name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength))
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            HTTP2Connection.from(userData).onFrame(frame!.pointee)
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            HTTP2Connection.from(userData).onData(streamID: streamID, bytes: UnsafeRawBufferPointer(start: data, count: length))
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            HTTP2Connection.from(userData).onFrameSent(frame!.pointee)
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, _, userData in
            HTTP2Connection.from(userData).onFrameNotSent(frame!.pointee)
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            HTTP2Connection.from(userData).streamClosed(id: streamID, errorCode: errorCode)
            return 0
        }

        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else {
            throw SocketError.system("nghttp2_option_new", 12)
        }
        defer { nghttp2_option_del(option) }
        // We return window credit only when the reader takes the bytes (HTTP2Stream.consume).
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_option_set_stream_reset_rate_limit(option, configuration.streamResetBurst, configuration.streamResetRate)
        nghttp2_option_set_max_outbound_ack(option, 1000)
        nghttp2_option_set_max_settings(option, 32)

        // Safe: the session never outlives `self`, which deletes it in `close` or `deinit`.
        let userData = Unmanaged.passUnretained(self).toOpaque()
        var created: OpaquePointer?
        let rc: Int32
        switch role {
        case .server: rc = nghttp2_session_server_new2(&created, callbacks, userData, option)
        case .client: rc = nghttp2_session_client_new2(&created, callbacks, userData, option)
        }
        guard rc == 0, let created else { throw SocketError.system("nghttp2_session_new", 12) }
        session = created

        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: configuration.maxConcurrentStreams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: UInt32(configuration.initialStreamWindow)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: configuration.maxHeaderListSize),
        ]
        if case .client = role {
            settings.append(nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0))
        }
        nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
        nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, configuration.connectionWindow)
    }

    static func from(_ userData: UnsafeMutableRawPointer?) -> HTTP2Connection {
        // Safe: every session is created with its connection as user_data (see startSession).
        Unmanaged<HTTP2Connection>.fromOpaque(userData!).takeUnretainedValue()
    }

    // MARK: Callbacks

    private func onBeginHeaders(_ frame: nghttp2_frame) -> Int32 {
        guard frame.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
        let streamID = frame.hd.stream_id
        if case .server = role, frame.headers.cat == NGHTTP2_HCAT_REQUEST {
            guard state == .active else { return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
            let stream = HTTP2Stream(connection: self, id: streamID)
            register(stream)
            return 0
        }
        if let stream = streams[streamID] {
            stream.headerBlock.removeAll()
            stream.inboundHeaderBytes = 0
        }
        return 0
    }

    private func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let stream = streams[streamID] else { return 0 }
        // RFC 9113 §6.5.2 counts 32 bytes of overhead per field.
        stream.inboundHeaderBytes += name.count + value.count + 32
        if stream.inboundHeaderBytes > Int(configuration.maxHeaderListSize) {
            return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        // A request head holds about ten fields: room for them at once, not four regrowths.
        if stream.headerBlock.capacity == 0 { stream.headerBlock.reserveCapacity(12) }
        // The same field at the same place in the previous block is reused: its strings are
        // decoded and checked already (16 decodes a request, and the allocations of the longer
        // ones, became two byte comparisons each).
        let index = stream.headerBlock.count
        if index < previousHeaderBlock.count, previousHeaderBlock[index].is(name: name, value: value) {
            stream.headerBlock.append(previousHeaderBlock[index])
        } else {
            stream.headerBlock.append(HTTP2Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return 0
    }

    private func onFrame(_ frame: nghttp2_frame) -> Int32 {
        let type = frame.hd.type
        let endStream = frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(type) {
        case NGHTTP2_SETTINGS.rawValue:
            prefaceReceived = true
        case NGHTTP2_GOAWAY.rawValue:
            goawayReceived = true
        case NGHTTP2_HEADERS.rawValue:
            guard let stream = streams[frame.hd.stream_id] else { return 0 }
            let headers = stream.headerBlock
            stream.headerBlock = []
            previousHeaderBlock = headers
            if case .server(let handler) = role, frame.headers.cat == NGHTTP2_HCAT_REQUEST {
                stream.delegate = handler.openStream(stream, headers: headers)
            } else {
                stream.delegate?.didReceiveHeaders(headers, endStream: endStream)
            }
            if endStream {
                stream.remoteEnded = true
                stream.delegate?.didReceiveEnd()
            }
        case NGHTTP2_DATA.rawValue:
            if endStream, let stream = streams[frame.hd.stream_id] {
                stream.remoteEnded = true
                stream.delegate?.didReceiveEnd()
            }
        default:
            break
        }
        return 0
    }

    private func onFrameSent(_ frame: nghttp2_frame) -> Int32 {
        guard case .server = role, frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
              let stream = streams[frame.hd.stream_id], !stream.remoteEnded, let session else { return 0 }
        // The response is complete but the client is still sending: tell it to stop
        // (RFC 9113 §8.1), after the final frame so the status still arrives.
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, HTTP2ErrorCode.noError)
        return 0
    }

    /// A response's HEADERS (head or trailers) that nghttp2 could not send, such as a header
    /// block past its limit, is dropped without a word to the peer, whose call would wait for a
    /// status that never comes: reset the stream instead (INTERNAL_ERROR, which a gRPC client
    /// reports as INTERNAL).
    private func onFrameNotSent(_ frame: nghttp2_frame) -> Int32 {
        guard case .server = role, frame.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), frame.hd.stream_id > 0,
              let session else { return 0 }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), frame.hd.stream_id, HTTP2ErrorCode.internalError)
        return 0
    }

    private func onData(streamID: Int32, bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let stream = streams[streamID], let delegate = stream.delegate else {
            if let session { nghttp2_session_consume_connection(session, bytes.count) }
            return 0
        }
        stream.unconsumedBytes += bytes.count
        delegate.didReceiveData(bytes)
        return 0
    }

    // MARK: Output

    /// Submits what `stream` has queued: its header block the first time, otherwise a resume
    /// of its deferred DATA.
    func streamHasOutput(_ stream: HTTP2Stream, headers: [HTTP2Header]?) {
        guard let session, state == .active || state == .draining else {
            if state != .closed, case .client = role, stream.id == 0 {
                if let headers { stream.pendingHead = headers }
                if !pendingClientStreams.contains(where: { $0 === stream }) { pendingClientStreams.append(stream) }
            } else if !stream.closed {
                stream.closed = true
                stream.resumeWriters()
                let delegate = stream.delegate
                stream.delegate = nil
                delegate?.didClose(errorCode: HTTP2ErrorCode.refusedStream)
            }
            return
        }
        if let headers, !stream.headersSubmitted {
            stream.headersSubmitted = true
            submitHead(stream, headers: headers, session: session)
        } else if stream.headersSubmitted && stream.dataDeferred {
            stream.dataDeferred = false
            nghttp2_session_resume_data(session, stream.id)
        }
        scheduleFlush()
    }

    /// Submits client streams that were created while the connection was still handshaking.
    func submitPendingClientStreams() {
        let pending = pendingClientStreams
        pendingClientStreams.removeAll()
        for stream in pending {
            let head = stream.pendingHead
            stream.pendingHead = nil
            streamHasOutput(stream, headers: head)
        }
    }

    private func submitHead(_ stream: HTTP2Stream, headers: [HTTP2Header], session: OpaquePointer) {
        var provider = nghttp2_data_provider()
        provider.read_callback = { _, streamID, buffer, length, flags, _, userData in
            HTTP2Connection.from(userData).readOutbound(streamID: streamID, into: buffer!, length: length, flags: flags!)
        }
        let noBody = stream.outbound.isEmpty && (stream.endAfterData || stream.pendingTrailers != nil)
        switch role {
        case .server:
            if noBody, let trailers = stream.pendingTrailers {
                // Trailers-Only: head and status in one HEADERS frame with END_STREAM.
                stream.pendingTrailers = nil
                withNameValues(headers + trailers) { nv, count in
                    _ = nghttp2_submit_response(session, stream.id, nv, count, nil)
                }
            } else if noBody {
                withNameValues(headers) { nv, count in
                    _ = nghttp2_submit_response(session, stream.id, nv, count, nil)
                }
            } else {
                withNameValues(headers) { nv, count in
                    _ = nghttp2_submit_response(session, stream.id, nv, count, &provider)
                }
            }
        case .client:
            let id = withNameValues(headers) { nv, count in
                if noBody && stream.endAfterData {
                    return nghttp2_submit_request(session, nil, nv, count, nil, nil)
                }
                return nghttp2_submit_request(session, nil, nv, count, &provider, nil)
            }
            guard id > 0 else {
                stream.closed = true
                let delegate = stream.delegate
                stream.delegate = nil
                delegate?.didClose(errorCode: HTTP2ErrorCode.refusedStream)
                return
            }
            stream.id = id
            register(stream)
        }
    }

    /// nghttp2's data source callback: copies queued bytes of one stream into a DATA frame.
    private func readOutbound(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
                              flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID], let session else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        let available = stream.bufferedOutboundBytes
        let count = min(available, length)
        if count > 0 {
            stream.outbound.withUnsafeBytes { bytes in
                // Safe: `count` bytes from `outboundOffset` lie inside `outbound` and fit `buffer`.
                UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + stream.outboundOffset, byteCount: count)
            }
            stream.outboundOffset += count
            counters?.add(-count)
            stream.didDrainOutbound()
        }
        if stream.bufferedOutboundBytes == 0 {
            if let trailers = stream.pendingTrailers {
                stream.pendingTrailers = nil
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue | NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                withNameValues(trailers) { nv, count in
                    _ = nghttp2_submit_trailer(session, streamID, nv, count)
                }
            } else if stream.endAfterData {
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            } else if count == 0 {
                stream.dataDeferred = true
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            }
        }
        return count
    }
}

/// Calls `body` with nghttp2 name/value pairs pointing into one buffer that holds every name
/// and value; the pointers are valid only during the call (nghttp2 copies them). Both buffers
/// are temporary allocations, on the stack for a usual head (this runs for every response's
/// head and trailers: three heap arrays each before).
private func withNameValues<R>(_ headers: [HTTP2Header], _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
    var byteCount = 0
    for header in headers { byteCount += header.name.utf8.count + header.value.utf8.count }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(byteCount, 1)) { bytes in
        withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(headers.count, 1)) { nvs in
            // Safe: `bytes` holds every name and value (counted above), `nvs` one pair per
            // header; both element types are trivial, so nothing needs deinitializing.
            let base = bytes.baseAddress!
            var offset = 0
            for (index, header) in headers.enumerated() {
                let name = offset
                offset = UnsafeMutableBufferPointer(rebasing: bytes[offset...]).initialize(fromContentsOf: header.name.utf8) + offset
                let value = offset
                offset = UnsafeMutableBufferPointer(rebasing: bytes[offset...]).initialize(fromContentsOf: header.value.utf8) + offset
                let flags = header.isIndexed ? NGHTTP2_NV_FLAG_NONE : NGHTTP2_NV_FLAG_NO_INDEX
                (nvs.baseAddress! + index).initialize(to: nghttp2_nv(name: base + name, value: base + value, namelen: value - name,
                                                                     valuelen: offset - value, flags: UInt8(flags.rawValue)))
            }
            return body(UnsafePointer(nvs.baseAddress!), headers.count)
        }
    }
}
