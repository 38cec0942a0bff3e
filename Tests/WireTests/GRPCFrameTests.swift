import Testing
import Wire

@Suite struct GRPCFrameTests {
    @Test func encode_writesFlagAndBigEndianLength() {
        #expect(GRPCFrame.encode([0xAA, 0xBB], compressed: false) == [0, 0, 0, 0, 2, 0xAA, 0xBB])
        #expect(GRPCFrame.encode([], compressed: true) == [1, 0, 0, 0, 0])
        let big = [UInt8](repeating: 7, count: 0x01_02_03)
        #expect(Array(GRPCFrame.encode(big, compressed: false).prefix(5)) == [0, 0, 0x01, 0x02, 0x03])
    }

    @Test func append_addsToExistingBuffer() {
        var buffer: [UInt8] = [9]
        GRPCFrame.append([1], compressed: false, to: &buffer)
        GRPCFrame.append([2, 3], compressed: true, to: &buffer)
        #expect(buffer == [9, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 2, 2, 3])
    }
}
