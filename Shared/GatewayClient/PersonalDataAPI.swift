public import ContractTypes
public import Foundation
public import RPCCore

extension GatewayClient {
    /// The signed-in member's copy of their own data from every service (GDPR access):
    /// `ExportMyData` of identity, discovery, messaging, production and media.
    public var personalData: PersonalDataAPI { PersonalDataAPI(runner: runner) }
}

/// Every service's `ExportMyData` as an app calls it, always for the signed-in account
/// (rendezvous/privacy/v1/privacy.proto), and the five together as one document.
public struct PersonalDataAPI: Sendable {
    let runner: CallRunner

    /// Every ExportMyData the client calls: reads, retried when a service is unreachable.
    enum Methods {
        static let identity = GatewayMethod("Identity/ExportMyData", .read, .session)
        static let discovery = GatewayMethod("Discovery/ExportMyData", .read, .session)
        static let messaging = GatewayMethod("Messaging/ExportMyData", .read, .session)
        static let production = GatewayMethod("Casting/ExportMyData", .read, .session)
        static let media = GatewayMethod("Media/ExportMyData", .read, .session)
    }

    /// A service that answers for its part of the member's data.
    public enum Service: String, Sendable, CaseIterable {
        case identity, discovery, messaging, production, media
    }

    /// What `service` holds about the signed-in member. `accountID` names the account the
    /// caller means (empty: the signed-in one); another is PERMISSION_DENIED `NOT_OWN_DATA`.
    public func export(_ service: Service, accountID: String = "", deadline: Duration? = nil) async throws(GatewayError)
        -> Privacy.PersonalDataExport {
        let request = Privacy.ExportMyDataRequest(accountID: accountID)
        let transport = runner.transport
        switch service {
        case .identity:
            return try await runner.run(Methods.identity, deadline: deadline) { options in
                try await IdentityClient(client: transport).exportMyData(request, options: options)
            }
        case .discovery:
            return try await runner.run(Methods.discovery, deadline: deadline) { options in
                try await DiscoveryClient(client: transport).exportMyData(request, options: options)
            }
        case .messaging:
            return try await runner.run(Methods.messaging, deadline: deadline) { options in
                try await MessagingClient(client: transport).exportMyData(request, options: options)
            }
        case .production:
            return try await runner.run(Methods.production, deadline: deadline) { options in
                try await CastingClient(client: transport).exportMyData(request, options: options)
            }
        case .media:
            return try await runner.run(Methods.media, deadline: deadline) { options in
                try await MediaClient(client: transport).exportMyData(request, options: options)
            }
        }
    }

    /// Every service's export of the signed-in member, asked for at once; the first failure
    /// fails the whole (a copy missing a service would look complete).
    public func exportAll(deadline: Duration? = nil) async throws(GatewayError) -> PersonalDataDocument {
        do {
            let exports = try await withThrowingTaskGroup(of: Privacy.PersonalDataExport.self) { group in
                for service in Service.allCases {
                    group.addTask { try await export(service, deadline: deadline) }
                }
                var exports: [Privacy.PersonalDataExport] = []
                for try await export in group { exports.append(export) }
                return exports
            }
            let order = Service.allCases.map(\.rawValue)
            return PersonalDataDocument(exports: exports.sorted {
                (order.firstIndex(of: $0.service) ?? order.count) < (order.firstIndex(of: $1.service) ?? order.count)
            })
        } catch let error as GatewayError {
            throw error
        } catch {
            throw GatewayError.gateway(error)
        }
    }
}
