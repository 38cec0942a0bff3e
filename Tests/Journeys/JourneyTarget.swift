package import GatewayClient
package import TestSupport

/// A deployment a journey can cross: the edge an app reaches, the fake APNs its pushes go to,
/// and the operator's grant of roles. `JourneyStack` (processes on this host) and
/// `ContainerStack` (compose's containers) are two.
package protocol JourneyTarget: Sendable {
    /// The edge's host and port as an app on this machine dials them.
    var edgeHost: String { get }
    var edgePort: Int { get }
    /// How an app reaches the edge: plaintext for the test edge, TLS for compose's.
    var edgeSecurity: GatewayConfiguration.TransportSecurity { get }
    /// Where messaging's pushes go, when the deployment pushes.
    var apns: FakeAPNs? { get }
    /// Gives `role` to `accountID` in `app`, as an operator would with `identity grant-role`.
    func grantRole(_ role: String, to accountID: String, app: String) async throws
}

extension JourneyStack: JourneyTarget {
    package var edgeHost: String { "127.0.0.1" }
    package var edgePort: Int { edge.port }
    package var edgeSecurity: GatewayConfiguration.TransportSecurity { .plaintext }
}

extension ContainerStack: JourneyTarget {
    package var edgeHost: String { "127.0.0.1" }
    package var edgeSecurity: GatewayConfiguration.TransportSecurity { .tlsTrustingRoots(pemFile: caFile) }
    package var apns: FakeAPNs? { pushes }
}
