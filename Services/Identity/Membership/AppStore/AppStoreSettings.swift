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
            guard let pem = pem(fromPEMOrDER: Array(contents)) else {
                throw ConfigurationError(variable: rootsVariable, message: "\(path) holds no PEM or DER certificate")
            }
            settings.appStoreRootsPEM = pem
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

    /// PEM as is when every `BEGIN CERTIFICATE` block holds base64; a DER certificate (an ASN.1
    /// SEQUENCE) wrapped as PEM; nil for anything else.
    static func pem(fromPEMOrDER bytes: [UInt8]) -> [UInt8]? {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        if let text = String(bytes: bytes, encoding: .utf8), text.contains(begin) {
            let blocks = text.components(separatedBy: begin).dropFirst()
            let valid = blocks.allSatisfy { block in
                guard let body = block.components(separatedBy: end).first, block.contains(end) else { return false }
                let base64 = body.filter { !$0.isWhitespace }
                return Data(base64Encoded: base64).map { !$0.isEmpty } ?? false
            }
            return valid ? bytes : nil
        }
        guard bytes.count > 2, bytes[0] == 0x30 else { return nil }
        let base64 = Data(bytes).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return Array("\(begin)\n\(base64)\n\(end)\n".utf8)
    }
}
