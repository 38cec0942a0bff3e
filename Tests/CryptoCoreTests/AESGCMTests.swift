import Testing
@testable import CryptoCore

@Suite struct AESGCMTests {
    /// The GCM specification's test cases 14 and 15 (AES-256; McGrew & Viega, "The Galois/Counter
    /// Mode of Operation", appendix B).
    @Test func knownAnswers() throws {
        let zero = try AESGCM.seal([UInt8](repeating: 0, count: 16), key: [UInt8](repeating: 0, count: 32),
                                   nonce: [UInt8](repeating: 0, count: 12), associatedData: [])
        #expect(zero.hex == "000000000000000000000000" + "cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919")

        let key = [UInt8](hex: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        let nonce = [UInt8](hex: "cafebabefacedbaddecaf888")
        let plaintext = [UInt8](hex: """
            d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525\
            b16aedf5aa0de657ba637b391aafd255
            """)
        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, associatedData: [])
        #expect(sealed.hex == "cafebabefacedbaddecaf888" + """
            522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838\
            c5f61e6393ba7a0abcc9f662898015ad
            """ + "b094dac5d93471bdec1a502270e3cc6c")
        #expect(try AESGCM.open(sealed, key: key) == plaintext)
    }

    @Test func seal_thenOpen_roundTrips_withFreshNonces() throws {
        let key = SecureRandom.bytes(32)
        let secret = Array("-----BEGIN PRIVATE KEY-----".utf8)
        let first = try AESGCM.seal(secret, key: key, associatedData: Array("kid-1".utf8))
        let second = try AESGCM.seal(secret, key: key, associatedData: Array("kid-1".utf8))
        #expect(first != second)
        #expect(try AESGCM.open(first, key: key, associatedData: Array("kid-1".utf8)) == secret)
        #expect(try AESGCM.open(try AESGCM.seal([], key: key), key: key) == [])
    }

    @Test func open_refusesTamperingWrongKeyAndWrongAssociatedData() throws {
        let key = SecureRandom.bytes(32)
        let sealed = try AESGCM.seal(Array("secret".utf8), key: key, associatedData: Array("kid-1".utf8))
        var flipped = sealed
        flipped[14] ^= 1
        for (box, boxKey, data) in [(flipped, key, "kid-1"), (sealed, SecureRandom.bytes(32), "kid-1"), (sealed, key, "kid-2")] {
            #expect(throws: CryptoError.self) { try AESGCM.open(box, key: boxKey, associatedData: Array(data.utf8)) }
        }
        #expect(throws: CryptoError.self) { try AESGCM.open(Array(sealed.prefix(20)), key: key) }
        #expect(throws: CryptoError.self) { try AESGCM.seal([1], key: [1, 2, 3]) }
    }
}
