// libFuzzer target for the Wire decoder and deframer; built by Tests/Fuzz/run.sh as one
// module together with Shared/Wire and the WireTests fixtures (TestMessage et al.).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Limits small enough that the fuzzer reaches them.
private let fuzzLimits = DecodingLimits(maxDepth: 16, maxMessageSize: 1 << 16)

/// Writes seed inputs into `$WIRE_FUZZ_WRITE_SEEDS` and exits, when that variable is set.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    guard let directory = getenv("WIRE_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) else {
        return 0
    }
    var seeds = GoldenCases.all.map { ($0.name, $0.golden) }
    var framed: [UInt8] = []
    for (_, bytes) in seeds {
        GRPCFrame.append(bytes, compressed: false, to: &framed)
    }
    seeds.append(("framed", framed))
    for (name, bytes) in seeds {
        guard let file = fopen("\(directory)/seed-\(name)", "wb") else {
            fatalError("cannot write seed \(name) into \(directory)")
        }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
    exit(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    fuzzDecoder(bytes)
    fuzzDeframer(bytes)
    return 0
}

/// Decodes `bytes`; whatever decodes must re-encode to bytes that decode to the same encoding.
private func fuzzDecoder(_ bytes: [UInt8]) {
    guard let message = try? TestMessage(serializedBytes: bytes, limits: fuzzLimits) else {
        return
    }
    let encoded = message.serializedBytes()
    let again: TestMessage
    do {
        again = try TestMessage(serializedBytes: encoded, limits: DecodingLimits(maxDepth: 16))
    } catch {
        fatalError("re-encoded message does not decode: \(error)")
    }
    guard again.serializedBytes() == encoded else {
        fatalError("encoding is not stable across a round trip")
    }
}

/// Deframes `bytes` whole and split at a point derived from the input; both must agree, and
/// every payload goes through the decoder too.
private func fuzzDeframer(_ bytes: [UInt8]) {
    guard let first = bytes.first else {
        return
    }
    let split = Int(first) * bytes.count / 256
    let whole = deframe([bytes[...]])
    let pieces = deframe([bytes[..<split], bytes[split...]])
    let stride = Int(first % 7) + 1
    let small = deframe(Swift.stride(from: 0, to: bytes.count, by: stride).map {
        bytes[$0..<min($0 + stride, bytes.count)]
    })
    guard whole == pieces, whole == small else {
        fatalError("deframer output depends on how the input is split")
    }
    for message in whole.messages {
        _ = try? TestMessage(serializedBytes: message.payload, limits: fuzzLimits)
    }
}

private struct DeframeResult: Equatable {
    var messages: [GRPCFramedMessage] = []
    var error: GRPCFramingError?
}

private func deframe(_ chunks: [ArraySlice<UInt8>]) -> DeframeResult {
    var deframer = GRPCDeframer(maxMessageSize: 1 << 10)
    var result = DeframeResult()
    do {
        for chunk in chunks {
            chunk.withUnsafeBytes { deframer.append($0) }
            while let message = try deframer.next() {
                result.messages.append(message)
            }
        }
        try deframer.finish()
    } catch let error as GRPCFramingError {
        result.error = error
    } catch {
        fatalError("unexpected error type \(error)")
    }
    return result
}
