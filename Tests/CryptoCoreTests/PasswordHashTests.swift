import Testing
@testable import CryptoCore

@Suite struct PasswordHashTests {
    /// Cheap parameters for tests that do not measure cost.
    static let fast = PasswordHash.Parameters(n: 1 << 10, r: 8, p: 1)

    @Test func make_interactive_verifiesAndHasFormat() throws {
        let encoded = try PasswordHash.make(password: "correct horse battery staple")
        let fields = encoded.split(separator: "$")
        #expect(fields.count == 6 && fields[0] == "scrypt" && fields[1] == "32768" && fields[2] == "8" && fields[3] == "1")
        #expect(try PasswordHash.verify(password: "correct horse battery staple", encoded: encoded))
        #expect(try !PasswordHash.verify(password: "correct horse battery stapl", encoded: encoded))
        #expect(try PasswordHash.parameters(of: encoded) == .interactive)
    }

    @Test func make_twice_usesFreshSalts() throws {
        let first = try PasswordHash.make(password: "pw", parameters: Self.fast)
        let second = try PasswordHash.make(password: "pw", parameters: Self.fast)
        #expect(first != second)
    }

    @Test func verify_canonicallyEquivalentUnicode_matches() throws {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301) are the same password.
        let encoded = try PasswordHash.make(password: "caf\u{E9}", parameters: Self.fast)
        #expect(try PasswordHash.verify(password: "cafe\u{301}", encoded: encoded))
    }

    @Test(arguments: [
        "", "scrypt", "bcrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "scrypt$01024$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "scrypt$+1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "scrypt$1024$8$1$AAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA",
        "scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA$extra",
    ])
    func verify_malformed_throwsMalformed(_ encoded: String) {
        #expect { try PasswordHash.verify(password: "pw", encoded: encoded) } throws: {
            ($0 as? CryptoError)?.code == .malformed
        }
    }

    /// Cost parameters from a stored hash are bounded before any work: a tampered row cannot ask
    /// for gigabytes or minutes.
    @Test(arguments: ["1048576$16$1", "2097152$8$1", "1024$8$64", "1024$64$1", "1048576$2$4", "512$8$1", "1000$8$1",
                      "18446744073709551616$8$1"])
    func verify_absurdParameters_throwInvalidParameters(_ cost: String) {
        let encoded = "scrypt$\(cost)$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        #expect { try PasswordHash.verify(password: "pw", encoded: encoded) } throws: { error in
            // 2^64 does not parse as UInt64, so that row is malformed rather than out of bounds.
            let code = (error as? CryptoError)?.code
            return code == .invalidParameters || (cost.hasPrefix("1844") && code == .malformed)
        }
    }

    @Test func errors_neverQuoteThePasswordOrHash() throws {
        let encoded = "scrypt$1024$8$1$c2VjcmV0c2FsdHNlY3JldA$not-a-valid-hash!"
        do {
            _ = try PasswordHash.verify(password: "hunter2", encoded: encoded)
            Issue.record("expected an error")
        } catch let error as CryptoError {
            #expect(!error.description.contains("hunter2"))
            #expect(!error.description.contains("c2VjcmV0"))
        }
    }

    @Test func make_parametersOutsideBounds_throw() {
        #expect { try PasswordHash.make(password: "pw", parameters: .init(n: 1 << 21, r: 8, p: 1)) } throws: {
            ($0 as? CryptoError)?.code == .invalidParameters
        }
    }

    @Test(.enabled(if: PythonJOSE.isAvailable))
    func make_matchesPythonCryptographyScrypt() throws {
        let encoded = try PasswordHash.make(password: "pässwörd", parameters: Self.fast)
        let fields = encoded.split(separator: "$").map(String.init)
        let reply = try PythonJOSE.call("scrypt", [
            "password": "pässwörd", "salt": .string(fields[4]), "n": 1024, "r": 8, "p": 1, "length": 32,
        ])
        #expect(reply["key"]?.stringValue == fields[5])
    }
}
