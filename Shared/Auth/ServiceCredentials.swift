import CryptoCore

/// The callers a service accepts on its internal methods: each caller's name and the SHA-256
/// of its secret. Empty, every internal call is refused (fail closed).
///
/// The text form, `RV_SERVICE_CREDENTIALS`, is a comma-separated list of `name=secret` or
/// `name=sha256:<64 hex digits>` (the digest of the secret, so the callee's configuration need
/// not hold the secret itself), e.g. `messaging=…,discovery=sha256:9f86d0…`. Spaces around
/// entries are ignored; a name may appear once.
package struct ServiceCredentials: Sendable {
    private static let digestPrefix = "sha256:"
    /// Compared against when the name is unknown, so an unknown name costs the same time as a
    /// wrong secret.
    private static let decoy = [UInt8](repeating: 0, count: 32)

    private let digests: [String: [UInt8]]

    /// Accepts no caller.
    package init() { digests = [:] }

    /// Accepts exactly these callers; a later credential with the same name replaces an earlier one.
    package init(_ credentials: [ServiceCredential]) {
        digests = Dictionary(credentials.map { ($0.name, SHA256Digest.hash(Array($0.secret.utf8))) },
                             uniquingKeysWith: { _, later in later })
    }

    /// Parses the text form described above.
    package init(parsing text: String) throws(ServiceCredentialError) {
        var digests: [String: [UInt8]] = [:]
        for (index, entry) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let trimmed = entry.trimmingSpaces
            guard !trimmed.isEmpty else { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw ServiceCredentialError("entry \(index + 1) is not name=secret or name=sha256:<hex>")
            }
            let name = String(trimmed[..<equals])
            let value = String(trimmed[trimmed.index(after: equals)...])
            guard digests[name] == nil else { throw ServiceCredentialError("service \"\(name)\" is listed twice") }
            if value.hasPrefix(Self.digestPrefix) {
                guard ServiceCredential.isValidName(name) else {
                    throw ServiceCredentialError("entry \(index + 1): a service name is 1-63 characters of a-z, 0-9, - and _, starting with a letter")
                }
                guard let digest = Self.hexBytes(value.dropFirst(Self.digestPrefix.count)), digest.count == 32 else {
                    throw ServiceCredentialError("the digest of \"\(name)\" must be sha256: and 64 hexadecimal digits")
                }
                digests[name] = digest
            } else {
                let credential = try ServiceCredential(name: name, secret: value)
                digests[name] = SHA256Digest.hash(Array(credential.secret.utf8))
            }
        }
        self.digests = digests
    }

    /// The accepted callers' names.
    package var names: Set<String> { Set(digests.keys) }

    package var isEmpty: Bool { digests.isEmpty }

    /// Whether `credential` is an accepted caller's name with its secret. The secrets' digests
    /// are compared in constant time; whether the name is known is not hidden beyond that.
    package func accepts(_ credential: ServiceCredential) -> Bool {
        let presented = SHA256Digest.hash(Array(credential.secret.utf8))
        let expected = digests[credential.name]
        let matches = ConstantTime.equals(presented, expected ?? Self.decoy)
        return matches && expected != nil
    }

    private static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
