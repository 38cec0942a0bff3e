internal import CCurl
import Foundation

/// Outbound HTTP/1.1 (and HTTPS) for the services' calls to the world outside the deployment —
/// an LLM endpoint, S3, webhooks — through libcurl rather than a hand-written client. Calls
/// block: run them on a `BlockingWorkPool`, never on an event loop or Swift's cooperative pool.
package enum OutboundHTTP {
    package struct Request: Sendable {
        package var method: String
        package var url: String
        package var headers: [(String, String)]
        package var body: [UInt8]
        /// The whole exchange, connecting included.
        package var timeout: Duration
        /// A longer response body fails the call with `bodyTooLarge`.
        package var maximumResponseBody: Int

        package init(method: String = "POST", url: String, headers: [(String, String)] = [], body: [UInt8] = [],
                     timeout: Duration, maximumResponseBody: Int = OutboundHTTP.maximumBody) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeout = timeout
            self.maximumResponseBody = maximumResponseBody
        }
    }

    package struct Response: Sendable {
        package var status: Int
        /// The final response's header fields, names lowercased, in the order received.
        package var headers: [(name: String, value: String)] = []
        package var body: [UInt8]

        /// The first value of header `name` (lowercase).
        package func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    }

    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The exchange took longer than the request's timeout.
        case timedOut
        /// Anything else libcurl reports (refused connection, TLS, bad URL…), with its message.
        case transport(String)
        /// The response body grew past `maximumBody`.
        case bodyTooLarge

        package var description: String {
            switch self {
            case .timedOut: "timed out"
            case .transport(let message): message
            case .bodyTooLarge: "response body too large"
            }
        }
    }

    /// Responses larger than this are refused unless a request allows more.
    package static let maximumBody = 8 << 20

    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Performs `request` on the calling thread.
    package static func perform(_ request: Request) throws(Failure) -> Response {
        guard initialized, let handle = curl_easy_init() else { throw .transport("libcurl could not start") }
        defer { curl_easy_cleanup(handle) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for (name, value) in request.headers { headerList = curl_slist_append(headerList, "\(name): \(value)") }
        let sink = Sink(limit: request.maximumResponseBody)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let milliseconds = max(1, request.timeout.components.seconds * 1000 + request.timeout.components.attoseconds / 1_000_000_000_000_000)
        _ = ccurl_setopt_string(handle, CURLOPT_URL, request.url)
        _ = ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        _ = ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(milliseconds))
        _ = ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(milliseconds))
        _ = ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        if request.method == "HEAD" { _ = ccurl_setopt_long(handle, CURLOPT_NOBODY, 1) }
        _ = ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
        _ = ccurl_setopt_write(handle, { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            guard sink.bytes.count + length <= sink.limit else {
                sink.overflowed = true
                return 0  // aborts the transfer
            }
            sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
            return length
        }, context)
        _ = ccurl_setopt_header(handle, { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            sink.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
            return length
        }, context)
        let code: CURLcode = request.body.withUnsafeBufferPointer { body in
            if !body.isEmpty || request.method == "POST" || request.method == "PUT" {
                _ = ccurl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
                _ = ccurl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress))
            }
            return curl_easy_perform(handle)
        }
        switch code {
        case CURLE_OK:
            return Response(status: ccurl_response_code(handle), headers: sink.headers, body: sink.bytes)
        case CURLE_OPERATION_TIMEDOUT:
            throw .timedOut
        case CURLE_WRITE_ERROR where sink.overflowed:
            throw .bodyTooLarge
        default:
            throw .transport(String(cString: curl_easy_strerror(code)))
        }
    }

    /// Collects the response; touched only by the thread running the transfer.
    private final class Sink {
        let limit: Int
        var bytes: [UInt8] = []
        var overflowed = false
        var headers: [(name: String, value: String)] = []

        init(limit: Int) {
            self.limit = limit
        }

        /// One header line as libcurl hands it over; a status line (a 100 Continue, a proxy's
        /// answer, then the final response) starts the list afresh.
        func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("HTTP/") {
                headers = []
            } else if let colon = text.firstIndex(of: ":") {
                headers.append((text[..<colon].lowercased(),
                                text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
        }
    }
}
