import Foundation
@testable import RendezvousCLI
import Testing

@Suite struct QRCodeTests {
    /// Printable ASCII of `length` bytes, different for every seed.
    static func payload(_ length: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:/?=&-._~")
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }

    /// Byte-mode capacities at M for versions 1-10 (ISO/IEC 18004 Table 7): each length and
    /// one byte more cross into the next version.
    static let mediumCapacities = [14, 26, 42, 62, 84, 106, 122, 152, 180, 213]

    @Test func capacities_matchTheSpecTable() {
        #expect((1...10).map { QRCode.byteCapacity(version: $0, correction: .medium) } == Self.mediumCapacities)
        #expect((1...4).map { QRCode.byteCapacity(version: $0, correction: .low) } == [17, 32, 53, 78])
        #expect((1...4).map { QRCode.byteCapacity(version: $0, correction: .quartile) } == [11, 20, 32, 46])
        #expect((1...4).map { QRCode.byteCapacity(version: $0, correction: .high) } == [7, 14, 24, 34])
        #expect(QRCode.byteCapacity(version: 40, correction: .low) == 2953)
        #expect(QRCode.byteCapacity(version: 40, correction: .high) == 1273)
    }

    /// The spec's worked example (Annex I): "01234567" at 1-M gives these data codewords,
    /// whose 10 error correction codewords are A5 24 D4 C1 ED 36 C7 87 2C 55.
    @Test func reedSolomon_matchesTheSpecExample() {
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        let ecc = ReedSolomon.remainder(of: data, divisor: ReedSolomon.divisor(degree: 10))
        #expect(ecc == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    @Test func alignmentPositions_matchTheSpecTable() {
        #expect(ModuleMatrix.alignmentPositions(version: 1) == [])
        #expect(ModuleMatrix.alignmentPositions(version: 2) == [6, 18])
        #expect(ModuleMatrix.alignmentPositions(version: 7) == [6, 22, 38])
        #expect(ModuleMatrix.alignmentPositions(version: 10) == [6, 28, 50])
        #expect(ModuleMatrix.alignmentPositions(version: 32) == [6, 34, 60, 86, 112, 138])
        #expect(ModuleMatrix.alignmentPositions(version: 40) == [6, 30, 58, 86, 114, 142, 170])
    }

    @Test(arguments: mediumCapacities.flatMap { [$0, $0 + 1] })
    func mediumPayload_atVersionBoundary_decodesWithZbar(length: Int) async throws {
        let text = Self.payload(length)
        let code = try QRCode.encode(Array(text.utf8), correction: .medium)
        let expectedVersion = (Self.mediumCapacities.firstIndex { length <= $0 } ?? 10) + 1
        #expect(code.version == expectedVersion)
        #expect(code.size == 17 + 4 * code.version)
        #expect(try await QRDecoding.decode(QRDecoding.rows(code)) == text)
    }

    @Test(arguments: QRCode.Correction.allCases, [1, 30, 120, 400])
    func everyLevel_decodesWithZbar(correction: QRCode.Correction, length: Int) async throws {
        let text = Self.payload(length)
        let code = try QRCode.encode(Array(text.utf8), correction: correction)
        #expect(try await QRDecoding.decode(QRDecoding.rows(code), scale: code.version > 10 ? 3 : 4) == text)
    }

    /// The mask is chosen by penalty, so force each one: a wrong pattern would only show when chosen.
    @Test(arguments: 0..<8)
    func everyMask_decodesWithZbar(mask: Int) async throws {
        let text = "momento://join/7KQ2XM?eventId=\(UUID().uuidString.lowercased())"
        let code = try QRCode.encode(Array(text.utf8), correction: .medium, forcedMask: mask)
        #expect(code.mask == mask)
        #expect(try await QRDecoding.decode(QRDecoding.rows(code)) == text)
    }

    @Test func largestVersions_decodeWithZbar() async throws {
        for (length, correction) in [(1_000, QRCode.Correction.medium), (2_331, .medium), (2_953, .low)] {
            let text = Self.payload(length)
            let code = try QRCode.encode(Array(text.utf8), correction: correction)
            #expect(try await QRDecoding.decode(QRDecoding.rows(code), scale: 3) == text, "\(length) bytes at \(correction)")
        }
        #expect(try QRCode.encode(Array(Self.payload(2_953).utf8), correction: .low).version == 40)
    }

    @Test func tooLong_throws() {
        #expect(throws: QRCode.TooLong.self) { try QRCode.encode(Array(repeating: 0x41, count: 2_332), correction: .medium) }
    }

    @Test func utf8Payload_decodesWithZbar() async throws {
        let text = "Momento · Café du Soleil ✓ 2026"
        let code = try QRCode.encode(Array(text.utf8))
        #expect(try await QRDecoding.decode(QRDecoding.rows(code)) == text)
    }

    /// What the terminal shows is the symbol: read back from the half blocks, it decodes.
    @Test(arguments: [false, true])
    func terminalRendering_decodesWithZbar(darkOnLight: Bool) async throws {
        let text = "momento://join/ABC234?eventId=\(UUID().uuidString.lowercased())"
        let code = try QRCode.encode(Array(text.utf8))
        let drawing = code.terminalRendering(darkOnLight: darkOnLight)
        let lines = drawing.split(separator: "\n")
        #expect(lines.count == (code.size + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 8 })
        var rows = QRDecoding.rows(terminal: drawing)
        if darkOnLight { rows = rows.map { $0.map { !$0 } } }
        #expect(rows == QRDecoding.rows(code))
        #expect(try await QRDecoding.decode(rows) == text)
    }
}
