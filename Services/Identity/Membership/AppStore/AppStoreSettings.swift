import CryptoCore
import Foundation
import Runtime

/// Identity's App Store settings from the environment.
///
/// - `RV_IDENTITY_APPSTORE_ROOT_CERT_FILE`: the root certificate(s) signed transactions must
///   chain to, PEM (one or more certificates) or a single DER certificate, e.g. Apple's
///   `AppleRootCA-G3.cer`. Unset: ApplyAppStoreTransaction answers APP_STORE_NOT_CONFIGURED.
/// - `RV_IDENTITY_APPSTORE_ENVIRONMENTS`: comma-separated environments whose transactions
///   grant tiers; default `Production` (add `Sandbox` for TestFlight and review builds).
enum AppStoreSettings {
    static let rootsVariable = "RV_IDENTITY_APPSTORE_ROOT_CERT_FILE"
    static let environmentsVariable = "RV_IDENTITY_APPSTORE_ENVIRONMENTS"
    static let knownEnvironments: Set<String> = ["Production", "Sandbox", "Xcode"]

    /// Reads both variables into `settings`; a configuration error names the variable.
    static func load(from environment: EnvironmentReader, into settings: inout IdentitySettings) throws {
        if let path = environment[rootsVariable] {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(variable: rootsVariable, message: "cannot read \(path)")
            }
            guard let roots = certificates(fromPEMOrDER: Array(contents)), parses(roots) else {
                throw ConfigurationError(variable: rootsVariable, message: "\(path) holds no PEM or DER certificate")
            }
            settings.appStoreRootsPEM = roots.pem
        }
        if let list = environment[environmentsVariable] {
            let names = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            guard !names.isEmpty, names.isSubset(of: knownEnvironments) else {
                throw ConfigurationError(variable: environmentsVariable,
                                         message: "must list some of \(knownEnvironments.sorted().joined(separator: ", "))")
            }
            settings.appStoreEnvironments = names
        }
    }

    /// PEM as is when every `BEGIN CERTIFICATE` block holds base64, or a DER certificate wrapped
    /// as PEM; with the first certificate's DER. Nil for anything else.
    static func certificates(fromPEMOrDER bytes: [UInt8]) -> (pem: [UInt8], firstDER: [UInt8])? {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        if let text = String(bytes: bytes, encoding: .utf8), text.contains(begin) {
            var certificates: [[UInt8]] = []
            for block in text.components(separatedBy: begin).dropFirst() {
                guard block.contains(end), let body = block.components(separatedBy: end).first,
                      let der = Data(base64Encoded: body.filter { !$0.isWhitespace }), !der.isEmpty else { return nil }
                certificates.append(Array(der))
            }
            return certificates.first.map { (bytes, $0) }
        }
        guard bytes.count > 2, bytes[0] == 0x30 else { return nil }  // DER: an ASN.1 SEQUENCE.
        let base64 = Data(bytes).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return (Array("\(begin)\n\(base64)\n\(end)\n".utf8), bytes)
    }

    /// Whether OpenSSL reads the roots as certificates: the first one is checked against them
    /// all, which only a malformed file fails as `.malformed` (a root itself is refused as a
    /// leaf for being a CA, which is fine here).
    private static func parses(_ roots: (pem: [UInt8], firstDER: [UInt8])) -> Bool {
        do {
            _ = try X509ChainVerifier.verify(chain: [roots.firstDER], trustedRootsPEM: roots.pem, at: nil)
            return true
        } catch let error as CryptoError {
            return error.code != .malformed
        } catch {
            return false
        }
    }
}
