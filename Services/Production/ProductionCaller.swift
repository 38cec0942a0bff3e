import Auth
import Contracts
import Foundation
import RPC

/// Who is calling a production method: their account, their app (which must run a show) and
/// whether their role produces it. Every handler starts here, so no method forgets the app or
/// role check (the policies in production.proto's header).
struct ProductionCaller: Sendable {
    let account: AuthenticatedAccount
    let id: UUID
    let isProducer: Bool

    var app: String { account.app }

    init(_ context: ServerCallContext, settings: ProductionSettings) throws {
        account = try context.requireAccount()
        guard settings.showApps.contains(account.app) else { throw ProductionError.appNotSupported(account.app) }
        guard let id = UUID(uuidString: account.accountID) else { throw ProductionError.accountNotFound }
        self.id = id
        isProducer = settings.producerRoles.contains(account.role)
    }

    /// Refuses anyone who does not produce the show (P2, P3, P5 writes, P6 writes, P7).
    func requireProducer() throws(ProductionError) {
        guard isProducer else { throw .producerOnly(role: account.role) }
    }
}

/// A time a request carries, as Unix microseconds: required, and one google.protobuf.Timestamp
/// can hold (years 1-9999, nanos 0-999,999,999); INVALID_ARGUMENT INVALID_ARGUMENT_VALUE naming
/// the field otherwise.
enum RequestTime {
    static func microseconds(_ time: Timestamp?, field: String) throws(ProductionError) -> Int64 {
        guard let time else { throw .invalid("\(field) is required") }
        guard let microseconds = time.validMicroseconds else { throw .invalidTime(field: field) }
        return microseconds
    }
}

/// Parsing of the UUIDs requests carry, each failure naming its field.
enum RequestID {
    static func parse(_ text: String, field: String) throws(ProductionError) -> UUID {
        guard let id = UUID(uuidString: text) else { throw .invalidID(field: field) }
        return id
    }

    /// nil for an empty field.
    static func optional(_ text: String, field: String) throws(ProductionError) -> UUID? {
        text.isEmpty ? nil : try parse(text, field: field)
    }
}

extension UUID {
    /// As the contracts carry ids: lowercase.
    var lowercased: String { uuidString.lowercased() }
}
