package import HTTP2

/// One plain HTTP/2 GET or HEAD answered by a `PlainHTTPHandler`: the handler runs as a task, its
/// body goes out in chunks that wait while the peer reads slowly.
final class PlainHTTPStream: HTTP2StreamDelegate {
    let stream: HTTP2Stream

    private init(stream: HTTP2Stream) { self.stream = stream }

    /// Bytes handed to the stream at once.
    static let chunkSize = 64 << 10

    static func start(_ stream: HTTP2Stream, request: PlainHTTPRequest, handler: any PlainHTTPHandler) -> PlainHTTPStream {
        Task {
            let response = await handler.respond(to: request)
            var head = [HTTP2Header(":status", String(response.status))]
            for (name, value) in response.headers { head.append(HTTP2Header(name.lowercased(), value)) }
            head.append(HTTP2Header("content-length", String(response.contentLength)))
            let body = request.method == "HEAD" ? [] : response.body
            guard body.count > chunkSize else {
                stream.send(headers: head, data: body, end: .endStream)
                return
            }
            stream.send(headers: head)
            var offset = 0
            while offset < body.count {
                let end = min(offset + chunkSize, body.count)
                stream.send(data: Array(body[offset..<end]), end: end == body.count ? .endStream : nil)
                offset = end
                await stream.waitUntilWritable()
            }
        }
        return PlainHTTPStream(stream: stream)
    }

    func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool) {}
    func didReceiveData(_ bytes: UnsafeRawBufferPointer) { stream.consume(bytes.count) }
    func didReceiveEnd() {}
    func didClose(errorCode: UInt32) {}
}
