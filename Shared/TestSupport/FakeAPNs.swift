package import CryptoCore
package import Foundation
import HTTP2
import IOLoop
import Synchronization

/// A stand-in for APNs in the tests (messaging's push): an HTTP/2 server over TLS that checks each push as Apple
/// does (provider token signature, key id, team, age; the headers) and answers as Apple
/// documents: 200 with `apns-id`, or an error status with a JSON `reason` (and `timestamp` with 410).
package final class FakeAPNs: Sendable {
    /// One push as the fake received it.
    package struct Request: Sendable {
        package var deviceToken: String
        package var bearer: String
        package var issuedAt: Int64
        package var topic: String?
        package var pushType: String?
        package var priority: String?
        package var collapseID: String?
        package var expiration: String?
        package var payload: [String: JSONValue]
        package var status: Int
        package var apnsID: String?
        /// When the fake received it.
        package var receivedAt = Date()

        package var aps: [String: JSONValue] { payload["aps"]?.objectValue ?? [:] }
        package var category: String? { aps["category"]?.stringValue }
        package var alertBody: String? { aps["alert"]?.objectValue?["body"]?.stringValue }
    }

    /// An answer scripted for a device token.
    package enum Answer: Sendable {
        case ok
        case error(Int, String)
    }

    package let key: ECSigningKey
    package let teamID: String
    package let certificatePEM: [UInt8]
    private let group: EventLoopGroup
    private let server: HTTP2Server
    private let state = Mutex(State())

    private struct State {
        var requests: [Request] = []
        var scripts: [String: [Answer]] = [:]
        var expiredBearers: Set<String> = []
        var outage: (status: Int, reason: String)?
    }

    package var port: Int { server.port }

    /// A fake listening on `host` (an address of this machine) whose certificate names
    /// `serverName` (with localhost and 127.0.0.1): containers reach it by their host's name.
    package init(teamID: String = "TEAM123456", keyID: String = "KEY1234567", host: String = "127.0.0.1",
                 serverName: String = "localhost") throws {
        key = try ECSigningKey.generate(keyID: keyID)
        self.teamID = teamID
        let (certificate, privateKey) = try TestCertificates.makeSelfSigned(commonName: serverName)
        certificatePEM = certificate
        group = try EventLoopGroup(loopCount: 1, name: "fake-apns")
        let tls = try TLSContext.makeServer(certificateChainPEM: certificate, privateKeyPEM: privateKey)
        let handler = Handler()
        server = HTTP2Server(host: host, port: 0, group: group, security: .tls(tls), handler: handler)
        handler.fake.withLock { $0 = self }
        try server.start()
    }

    package func stop() async {
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    /// The environment of a messaging executable that pushes to this fake: a .p8 key and the
    /// fake's certificate written to `directory`, every app's topic `com.example.<app>`, quick
    /// retries and polling.
    package func messagingEnvironment(directory: URL, serverName: String = "127.0.0.1") throws -> [String: String] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyFile = directory.appendingPathComponent("AuthKey.p8")
        let rootsFile = directory.appendingPathComponent("apns-root.pem")
        try Data(try key.pemBytes()).write(to: keyFile)
        try Data(certificatePEM).write(to: rootsFile)
        return [
            "RV_APNS_HOST": "\(serverName):\(port)", "RV_APNS_SANDBOX_HOST": "\(serverName):\(port)",
            "RV_APNS_KEY_FILE": keyFile.path, "RV_APNS_KEY_ID": key.keyID, "RV_APNS_TEAM_ID": teamID,
            "RV_APNS_TRUST_ROOTS": rootsFile.path,
            "RV_APNS_TOPICS": Self.apps.map { "\($0):com.example.\($0)" }.joined(separator: ","),
            "RV_APNS_BACKOFF_MS": "20", "RV_PUSH_POLL_INTERVAL_MS": "20",
        ]
    }

    static let apps = ["elite", "firstdate", "swivo", "unseen", "momento"]

    /// Answers the next pushes to `deviceToken` with `answers`, in order, then 200s.
    package func script(_ deviceToken: String, _ answers: [Answer]) {
        state.withLock { $0.scripts[deviceToken.lowercased(), default: []].append(contentsOf: answers) }
    }

    /// Every provider token seen so far is refused from now on with 403 ExpiredProviderToken.
    package func expireProviderTokens() {
        state.withLock { state in state.expiredBearers.formUnion(state.requests.map(\.bearer)) }
    }

    /// Accepts again the provider tokens `expireProviderTokens` refused. A test that expires them
    /// calls this when it ends: an instance that sent nothing since still holds its old token,
    /// and its next push would be refused once and sent again, a second request for the tests
    /// that follow.
    package func acceptExpiredProviderTokens() {
        state.withLock { $0.expiredBearers.removeAll() }
    }

    /// Every push is refused with `status` and `reason` (503 ServiceUnavailable: APNs down)
    /// until `endOutage`.
    package func beginOutage(status: Int = 503, reason: String = "ServiceUnavailable") {
        state.withLock { $0.outage = (status, reason) }
    }

    /// Pushes are answered as before `beginOutage`.
    package func endOutage() {
        state.withLock { $0.outage = nil }
    }

    /// The pushes received for `deviceToken`, oldest first.
    package func requests(to deviceToken: String) -> [Request] {
        state.withLock { $0.requests.filter { $0.deviceToken == deviceToken.lowercased() } }
    }

    package var allRequests: [Request] { state.withLock { $0.requests } }

    /// Waits (bounded) until `condition` holds over the pushes to `deviceToken`.
    package func waitFor(_ deviceToken: String, timeout: Duration = .seconds(15),
                 _ condition: ([Request]) -> Bool) async throws -> [Request] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let seen = requests(to: deviceToken)
            if condition(seen) { return seen }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw FakeAPNsError(description: "timed out waiting for pushes to …\(deviceToken.suffix(8)); got \(requests(to: deviceToken).count)")
    }

    /// Decides the answer to one push, as APNs would.
    fileprivate func answer(headers: [HTTP2Header], body: [UInt8]) -> (Int, [HTTP2Header], [UInt8]) {
        let path = headers[first: ":path"] ?? ""
        let deviceToken = path.hasPrefix("/3/device/") ? String(path.dropFirst("/3/device/".count)).lowercased() : ""
        let authorization = headers[first: "authorization"] ?? ""
        let bearer = authorization.hasPrefix("bearer ") ? String(authorization.dropFirst(7)) : ""
        var issuedAt: Int64 = 0
        var refusal: (Int, String)?
        if bearer.isEmpty {
            refusal = (403, "MissingProviderToken")
        } else if let claims = verify(bearer) {
            issuedAt = claims
        } else {
            refusal = (403, "InvalidProviderToken")
        }
        if refusal == nil, headers[first: "apns-topic"] == nil { refusal = (400, "MissingTopic") }
        // A VoIP push goes to the app's `.voip` topic (PushKit), an alert to the bundle id.
        let voipTopic = headers[first: "apns-topic"]?.hasSuffix(".voip") == true
        switch headers[first: "apns-push-type"] {
        case "alert" where !voipTopic, "voip" where voipTopic: break
        default: if refusal == nil { refusal = (400, "InvalidPushType") }
        }
        if refusal == nil, headers[first: ":method"] != "POST" { refusal = (405, "MethodNotAllowed") }
        let payload = (try? JSONValue.parseObject(body)) ?? [:]
        if refusal == nil, payload["aps"]?.objectValue == nil { refusal = (400, "PayloadEmpty") }
        let apnsID = UUID().uuidString
        return state.withLock { state in
            if refusal == nil, let outage = state.outage { refusal = outage }
            if refusal == nil, state.expiredBearers.contains(bearer) { refusal = (403, "ExpiredProviderToken") }
            if refusal == nil, var script = state.scripts[deviceToken], !script.isEmpty {
                if case .error(let status, let reason) = script.removeFirst() { refusal = (status, reason) }
                state.scripts[deviceToken] = script
            }
            let status = refusal?.0 ?? 200
            state.requests.append(Request(deviceToken: deviceToken, bearer: bearer, issuedAt: issuedAt,
                                          topic: headers[first: "apns-topic"], pushType: headers[first: "apns-push-type"],
                                          priority: headers[first: "apns-priority"], collapseID: headers[first: "apns-collapse-id"],
                                          expiration: headers[first: "apns-expiration"], payload: payload, status: status,
                                          apnsID: apnsID))
            var fields: [String: JSONValue] = [:]
            if let (_, reason) = refusal {
                fields["reason"] = .string(reason)
                if status == 410 { fields["timestamp"] = .integer(Int64(Date().timeIntervalSince1970 * 1000)) }
            }
            return (status, [HTTP2Header("apns-id", apnsID)], refusal == nil ? [] : JSONValue.object(fields).serialized())
        }
    }

    /// The token's `iat` when it is an ES256 JWT by our key, with our kid and team; else nil.
    private func verify(_ bearer: String) -> Int64? {
        guard let parsed = try? JWS.parse(bearer, allowedAlgorithms: [.es256]), parsed.keyID == key.keyID,
              key.verifyingKey.isValidSignature(parsed.signature, for: parsed.signingInput),
              let claims = try? JSONValue.parseObject(parsed.payload), claims["iss"]?.stringValue == teamID,
              let issuedAt = claims["iat"]?.int64Value,
              abs(Int64(Date().timeIntervalSince1970) - issuedAt) < 3_600 else { return nil }
        return issuedAt
    }

    private final class Handler: HTTP2ServerStreamHandler {
        let fake = Mutex<FakeAPNs?>(nil)

        func openStream(_ stream: HTTP2Stream, headers: [HTTP2Header]) -> any HTTP2StreamDelegate {
            PushStream(stream: stream, headers: headers, fake: fake.withLock { $0 })
        }
    }

    private final class PushStream: HTTP2StreamDelegate {
        let stream: HTTP2Stream
        let headers: [HTTP2Header]
        weak var fake: FakeAPNs?
        var body: [UInt8] = []

        init(stream: HTTP2Stream, headers: [HTTP2Header], fake: FakeAPNs?) {
            self.stream = stream
            self.headers = headers
            self.fake = fake
        }

        func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool) {}

        func didReceiveData(_ bytes: UnsafeRawBufferPointer) {
            body.append(contentsOf: bytes)
            stream.consume(bytes.count)
        }

        func didReceiveEnd() {
            guard let fake else { return stream.reset() }
            let (status, headers, body) = fake.answer(headers: self.headers, body: body)
            var head = [HTTP2Header(":status", String(status))] + headers
            if !body.isEmpty { head.append(HTTP2Header("content-type", "application/json")) }
            stream.send(headers: head, data: body, end: .endStream)
        }

        func didClose(errorCode: UInt32) {}
    }
}

package struct FakeAPNsError: Error, CustomStringConvertible {
    package var description: String
}
