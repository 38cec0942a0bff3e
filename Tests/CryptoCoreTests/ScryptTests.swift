import Testing
@testable import CryptoCore

@Suite struct ScryptTests {
    /// RFC 7914 §12 vectors 1–3 (the fourth needs 1 GiB and is left out).
    static let vectors: [(String, String, UInt64, UInt32, UInt32, String)] = [
        ("", "", 16, 1, 1,
         "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"),
        ("password", "NaCl", 1024, 8, 16,
         "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"),
        ("pleaseletmein", "SodiumChloride", 16384, 8, 1,
         "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"),
    ]

    @Test(arguments: vectors)
    func derive_rfc7914(_ password: String, _ salt: String, _ n: UInt64, _ r: UInt32, _ p: UInt32, _ expected: String) throws {
        let key = try Scrypt.derive(password: Array(password.utf8), salt: Array(salt.utf8), n: n, r: r, p: p, length: 64)
        #expect(key.hex == expected)
    }

    @Test func derive_interactiveCost_needsMoreThanOpenSSLDefaultMemory() throws {
        // N = 2^15, r = 8 needs 32 MiB plus a little: above OpenSSL's default 32 MiB cap.
        let key = try Scrypt.derive(password: [1], salt: [2], n: 1 << 15, r: 8, p: 1, length: 32)
        #expect(key.count == 32)
    }

    @Test(arguments: [(UInt64(0), UInt32(8), UInt32(1), 32), (1, 8, 1, 32), (1000, 8, 1, 32), (1024, 0, 1, 32),
                      (1024, 8, 0, 32), (1024, 8, 1, 0), (1024, 8, 1, 2048), (1 << 62, UInt32.max, 1, 32)])
    func derive_badParameters_throwInvalidParameters(_ n: UInt64, _ r: UInt32, _ p: UInt32, _ length: Int) {
        #expect { try Scrypt.derive(password: [], salt: [], n: n, r: r, p: p, length: length) } throws: {
            ($0 as? CryptoError)?.code == .invalidParameters
        }
    }
}
