import Contracts
import RPC
import Testing

/// A service implementing the generated protocol is routed for every RPC shape, and the
/// generated client reaches each one over a live socket.
@Suite struct GeneratedServiceTests {
    struct Everywhere: EverywhereProvider {
        func echo(_ request: Everything.Everything, context: ServerCallContext) async throws -> Everything.Everything {
            guard request.accountID != "full" else {
                throw RPCError(Everything.ErrorReason.sessionFull, message: "no seat left")
            }
            return request
        }

        func ping(_ request: Everything.Nothing, context: ServerCallContext) async throws -> Everything.Nothing {
            request
        }

        func count(_ request: Everything.Scalars, writer: ResponseWriter<Everything.Scalars>,
                   context: ServerCallContext) async throws {
            for value in 0..<request.anInt32 { try await writer.write(Everything.Scalars(anInt32: value)) }
        }

        func sum(_ requests: RequestStream<Everything.Scalars>, context: ServerCallContext) async throws -> Everything.Scalars {
            var total: Int64 = 0
            for try await request in requests { total += request.anInt64 }
            return Everything.Scalars(anInt64: total)
        }

        func chat(_ requests: RequestStream<Everything.Everything>, writer: ResponseWriter<Everything.Everything>,
                  context: ServerCallContext) async throws {
            for try await request in requests { try await writer.write(request) }
        }
    }

    @Test func everyRPCShape_isRouted_andCalledThroughTheGeneratedClient() async throws {
        let server = try RPCServer(configuration: RPCServerConfiguration(), services: [Everywhere()])
        let port = try server.start()
        let rpc = RPCClient(host: "127.0.0.1", port: port)
        defer { rpc.close() }
        let client = EverywhereClient(client: rpc)

        let message = Everything.Everything(accountID: "a", contact: .phoneNumber(5), labels: ["k": "v"])
        #expect(try await client.echo(message) == message)
        #expect(try await client.ping() == Everything.Nothing())

        var counted: [Int32] = []
        for try await value in try await client.count(Everything.Scalars(anInt32: 3)) { counted.append(value.anInt32) }
        #expect(counted == [0, 1, 2])

        let sum = try await client.sum { call in
            for value in [Int64(1), 2, 39] { try await call.send(Everything.Scalars(anInt64: value)) }
            call.finishSending()
        }
        #expect(sum.anInt64 == 42)

        let chat = try await client.chat()
        try await chat.send(Everything.Everything(accountID: "hello"))
        chat.finishSending()
        var replies: [String] = []
        for try await reply in chat { replies.append(reply.accountID) }
        #expect(replies == ["hello"])

        do {
            _ = try await client.echo(Everything.Everything(accountID: "full"))
            Issue.record("expected SESSION_FULL")
        } catch let error as RPCError {
            #expect(error.code == .failedPrecondition)
            #expect(error.reason(as: Everything.ErrorReason.self) == .sessionFull)
        }
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
