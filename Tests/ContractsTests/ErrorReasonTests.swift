import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// Error reasons are contract data: each service's `ErrorReason` enum names every reason with
/// its gRPC status, and the code that fails calls takes them from there.
@Suite struct ErrorReasonTests {
    @Test func aReason_givesItsContractStatus_andRoundTripsThroughItsName() {
        let error = RPCError(Identity.ErrorReason.userNotFound, message: "no such user")
        #expect(error.code == .notFound)
        #expect(error.reason == "USER_NOT_FOUND")
        #expect(error.reason(as: Identity.ErrorReason.self) == .userNotFound)
        #expect(error.reason(as: Platform.ErrorReason.self) == nil)
        #expect(RPCError(Platform.ErrorReason.tokenExpired, message: "expired").code == .unauthenticated)
    }

    @Test func unknownNamesAndNumbers_areNotReasons() {
        #expect(Identity.ErrorReason(name: "NOT_A_REASON") == nil)
        #expect(Identity.ErrorReason(rawValue: 9_999).name == nil)
        #expect(Identity.ErrorReason(rawValue: 9_999).statusCode == .unknown)
        #expect(Identity.ErrorReason.unspecified.name == nil)
        #expect(RPCError(code: .internal, message: "x").reason(as: Identity.ErrorReason.self) == nil)
    }

    /// The runtime, the database mapping and the interop server cannot import Contracts (or do
    /// not need to), so they name reasons as text: each must be a platform reason with the same
    /// status, or it is missing from the contract apps read.
    @Test func everyReasonTheRuntimeSpells_isAPlatformReasonWithTheSameStatus() throws {
        let root = RepositoryPaths.root
        var checked = 0
        for folder in ["Shared/RPC", "Shared/Postgres", "Shared/Runtime", "Shared/Auth", "Shared/GatewayClient"] {
            for (file, text) in try Self.swiftSources(root.appendingPathComponent(folder)) {
                for (code, reason) in Self.spelledReasons(text) {
                    checked += 1
                    guard let declared = Platform.ErrorReason(name: reason) else {
                        Issue.record("\(file): reason \(reason) is not in rendezvous/platform/v1/platform.proto")
                        continue
                    }
                    if let code {
                        #expect(declared.statusCode.rawValue == code, "\(file): \(reason) with status \(code), the contract says \(declared.statusCode)")
                    }
                }
            }
        }
        #expect(checked > 10)
    }

    /// Identity spells no reason as text: every one comes from `Identity.ErrorReason`.
    @Test func identityNamesNoReasonAsText() throws {
        let root = RepositoryPaths.root.appendingPathComponent("Services/Identity")
        for (file, text) in try Self.swiftSources(root) {
            for (_, reason) in Self.spelledReasons(text) {
                Issue.record("\(file): reason \(reason) spelled as text; use Identity.ErrorReason")
            }
        }
    }

    /// Messaging spells no reason as text either: every one comes from `Messaging.ErrorReason`.
    @Test func messagingNamesNoReasonAsText() throws {
        let root = RepositoryPaths.root.appendingPathComponent("Services/Messaging")
        var files = 0
        for (file, text) in try Self.swiftSources(root) {
            files += 1
            for (_, reason) in Self.spelledReasons(text) {
                Issue.record("\(file): reason \(reason) spelled as text; use Messaging.ErrorReason")
            }
        }
        #expect(files > 10)
    }

    static func swiftSources(_ folder: URL) throws -> [(String, String)] {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        return try files.map { ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8)) }
    }

    /// `code: .x, … reason: "R"` (status from the name) and the Postgres mapping's
    /// `(14, "R", …)` tuples (status as a number).
    static func spelledReasons(_ text: String) -> [(code: Int?, reason: String)] {
        var found: [(Int?, String)] = []
        let named = /code:\s*\.(\w+),(?:(?!code:)[\s\S]){0,300}?reason:\s*"([A-Z][A-Z0-9_]+)"/
        for match in text.matches(of: named) {
            found.append((StatusCode.number(of: String(match.1)), String(match.2)))
        }
        let bare = /reason:\s*"([A-Z][A-Z0-9_]+)"/
        let namedReasons = Set(found.map(\.1))
        for match in text.matches(of: bare) where !namedReasons.contains(String(match.1)) {
            found.append((nil, String(match.1)))
        }
        let tuple = /\((\d+),\s*"([A-Z][A-Z0-9_]+)",/
        for match in text.matches(of: tuple) {
            found.append((Int(match.1), String(match.2)))
        }
        return found
    }
}

private extension StatusCode {
    static func number(of name: String) -> Int? {
        (0...16).first { StatusCode(rawValue: $0).swiftName == name }
    }

    var swiftName: String {
        let names = ["ok", "cancelled", "unknown", "invalidArgument", "deadlineExceeded", "notFound", "alreadyExists",
                     "permissionDenied", "resourceExhausted", "failedPrecondition", "aborted", "outOfRange",
                     "unimplemented", "internal", "unavailable", "dataLoss", "unauthenticated"]
        return rawValue < names.count ? names[rawValue] : ""
    }
}
