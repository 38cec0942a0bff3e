import Foundation
import Glibc
@testable import Runtime
import Synchronization
import Testing

/// Standard error's line buffer, on a pipe as a container runtime reads it: every line arrives
/// whole and once, each thread's lines in their order, without a flush as well as after one; a
/// reader that stops reading makes the loggers wait instead of memory growing.
@Suite struct LogLineBufferTests {
    /// A pipe whose read end is drained by a thread into `received`.
    final class Pipe: @unchecked Sendable {
        // @unchecked Sendable: `bytes` is behind `lock`; the descriptors are fixed.
        let readEnd: Int32
        let writeEnd: Int32
        private let lock = NSLock()
        private var bytes: [UInt8] = []

        init(drained: Bool = true) throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            readEnd = ends[0]
            writeEnd = ends[1]
            if drained { Thread { [self] in drain() }.start() }
        }

        func drain() {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(readEnd, &chunk, chunk.count)
                if count <= 0 { return }
                lock.withLock { bytes.append(contentsOf: chunk[0..<count]) }
            }
        }

        var received: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }

        /// Waits up to `seconds` for `count` lines.
        func lines(count: Int, within seconds: Double) async throws -> [Substring] {
            let deadline = Date().addingTimeInterval(seconds)
            while true {
                let lines = received.split(separator: "\n")
                if lines.count >= count || Date() > deadline { return lines }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    @Test func concurrentLines_arriveWholeOnceAndInEachWritersOrder_withoutAFlush() async throws {
        let pipe = try Pipe()
        let buffer = LogLineBuffer(descriptor: pipe.writeEnd)
        let writers = 8, perWriter = 2_000
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<perWriter {
                        buffer.append("writer=\(writer) index=\(index) \(String(repeating: "x", count: index % 97))\n")
                    }
                }
            }
        }
        // No flush: the writer thread alone brings every line out.
        let lines = try await pipe.lines(count: writers * perWriter, within: 10)
        #expect(lines.count == writers * perWriter)
        var next = [Int](repeating: 0, count: writers)
        var malformed = 0
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let writer = Int(fields[0].dropFirst("writer=".count)),
                  let index = Int(fields[1].dropFirst("index=".count)), writer < writers,
                  line.count == "writer=\(writer) index=\(index) ".count + index % 97 else {
                malformed += 1
                continue
            }
            #expect(index == next[writer], "writer \(writer): line \(index) after \(next[writer] - 1)")
            next[writer] = index + 1
        }
        #expect(malformed == 0)
        #expect(next == [Int](repeating: perWriter, count: writers))
        close(pipe.writeEnd)
    }

    @Test func flush_returnsWithEveryLineBeforeItWritten() throws {
        let pipe = try Pipe(drained: false)  // nobody reads: what flush wrote stays in the pipe
        let buffer = LogLineBuffer(descriptor: pipe.writeEnd)
        var total = 0
        for index in 0..<100 {
            let line = "line \(index)\n"
            buffer.append(line)
            total += line.utf8.count
            buffer.flush()
            var inPipe: Int32 = 0
            _ = ioctl(pipe.readEnd, UInt(FIONREAD), &inPipe)
            #expect(Int(inPipe) == total, "after line \(index)")
        }
        close(pipe.writeEnd)
    }

    @Test func aReaderThatStops_makesTheLoggerWait_notTheBufferGrow() async throws {
        let pipe = try Pipe(drained: false)
        let limit = 4_096
        let buffer = LogLineBuffer(descriptor: pipe.writeEnd, limit: limit)
        let line = String(repeating: "y", count: 1_023) + "\n"
        // A pipe holds 64 KiB: past that and the limit, an append blocks until someone reads.
        let appended = Atomic<Int>(0)
        let logger = Thread {
            for _ in 0..<200 {
                buffer.append(line)
                appended.add(1, ordering: .relaxed)
            }
        }
        logger.start()
        try await Task.sleep(for: .milliseconds(500))
        let stalled = appended.load(ordering: .relaxed)
        // At most the pipe's 64 KiB, a batch in the writer's hands and the pending bytes, each
        // batch at most the limit and one line.
        #expect(stalled * 1_024 <= 65_536 + 2 * (limit + 1_024), "\(stalled) lines of 1 KiB appended while nobody read")
        Thread { pipe.drain() }.start()
        let lines = try await pipe.lines(count: 200, within: 10)
        #expect(lines.count == 200 && lines.allSatisfy { $0.count == 1_023 })
        close(pipe.writeEnd)
    }
}

