import ServiceLifecycle

/// The admin listener as a `Service`; shut down last, so `/readyz` reports the drain.
struct AdminService: Service, CustomStringConvertible {
    let server: AdminServer

    var description: String { "admin-listener" }

    func run() async throws {
        try? await gracefulShutdown()
        await server.shutdown()
    }
}
