import Contracts
import RPC

/// Production's domain failures and the one place that decides their gRPC status and reason.
enum ProductionError: Error, Sendable, Equatable, RPCErrorConvertible {
    case appNotSupported(String)
    case producerOnly(role: String)
    case invalid(String)
    case invalidID(field: String)
    /// A time outside google.protobuf.Timestamp's range.
    case invalidTime(field: String)
    case invalidMoney(String)
    case invalidPageToken
    case applicationNotFound
    case applicationLocked(status: String)
    case applicationIncomplete(missing: [String])
    case outOfOrder(from: String, to: String)
    case seasonNotFound
    case episodeNotFound
    case seasonExists(Int32)
    case episodeExists(Int32)
    case consentRequired
    case dealNotConfirmed
    case behindTheGlassRequired
    case notSelected
    case episodeLocked
    case noConsentText
    case staleConsentText(current: String)
    case typedNameMismatch
    case notCast
    case noStandingConsent
    case accountNotFound
    case restaurantNotFound
    case scheduleConflict(kind: String, episodes: [String])
    case wardrobeItemNotFound
    case matchNotFound
    case dateNotFound
    case dateState(status: String)
    case cannotConfirmOwnDate
    case consentTextSuperseded
    case shootNotScheduled
    case alreadyReviewed
    case scriptFinal
    case scriptNotFound

    var rpcError: RPCError {
        switch self {
        case .appNotSupported(let app):
            RPCError(Production.ErrorReason.appNotSupported, message: "\(app.isEmpty ? "this app" : app) runs no show here",
                     details: ["app": app])
        case .producerOnly(let role):
            RPCError(Production.ErrorReason.producerOnly, message: "only the show's hosts may do this",
                     details: ["role": role])
        case .invalid(let message):
            RPCError(Production.ErrorReason.invalidArgumentValue, message: message)
        case .invalidTime(let field):
            RPCError(Production.ErrorReason.invalidArgumentValue,
                     message: "\(field) must be a time in years 1-9999 with nanos 0-999,999,999", details: ["field": field])
        case .invalidID(let field):
            RPCError(Production.ErrorReason.invalidID, message: "\(field) is not a UUID", details: ["field": field])
        case .invalidMoney(let message):
            RPCError(Production.ErrorReason.invalidMoney, message: message)
        case .invalidPageToken:
            RPCError(Production.ErrorReason.invalidPageToken, message: "page_token is not one of ours")
        case .applicationNotFound:
            RPCError(Production.ErrorReason.applicationNotFound, message: "no such application")
        case .applicationLocked(let status):
            RPCError(Production.ErrorReason.applicationLocked, message: "the application is being reviewed and can no longer change",
                     details: ["status": status])
        case .applicationIncomplete(let missing):
            RPCError(Production.ErrorReason.applicationIncomplete, message: "steps still to save: \(missing.joined(separator: ", "))",
                     details: ["missing": missing.joined(separator: ",")])
        case .outOfOrder(let from, let to):
            RPCError(Production.ErrorReason.outOfOrder, message: "\(from) cannot move to \(to); stages go one at a time",
                     details: ["from": from, "to": to])
        case .seasonNotFound:
            RPCError(Production.ErrorReason.seasonNotFound, message: "no such season")
        case .episodeNotFound:
            RPCError(Production.ErrorReason.episodeNotFound, message: "no such episode")
        case .seasonExists(let number):
            RPCError(Production.ErrorReason.seasonExists, message: "season \(number) already exists")
        case .episodeExists(let number):
            RPCError(Production.ErrorReason.episodeExists, message: "episode \(number) of this season already exists")
        case .consentRequired:
            RPCError(Production.ErrorReason.consentRequired,
                     message: "an episode is scheduled only with signed consent from everyone cast in it")
        case .dealNotConfirmed:
            RPCError(Production.ErrorReason.dealNotConfirmed, message: "production starts once the deal is confirmed")
        case .behindTheGlassRequired:
            RPCError(Production.ErrorReason.behindTheGlassRequired, message: "an episode is published with its BehindTheGlass detail")
        case .notSelected:
            RPCError(Production.ErrorReason.notSelected, message: "only a selected applicant can be cast")
        case .episodeLocked:
            RPCError(Production.ErrorReason.episodeLocked, message: "the episode's cast can no longer change")
        case .noConsentText:
            RPCError(Production.ErrorReason.noConsentText, message: "no consent text has been published yet")
        case .staleConsentText(let current):
            RPCError(Production.ErrorReason.staleConsentText, message: "consent must be given to the current text",
                     details: ["current_version": current])
        case .typedNameMismatch:
            RPCError(Production.ErrorReason.typedNameMismatch, message: "the typed name must be the participant's full legal name")
        case .notCast:
            RPCError(Production.ErrorReason.notCast, message: "the participant is not cast in this episode")
        case .noStandingConsent:
            RPCError(Production.ErrorReason.noStandingConsent, message: "the participant has no consent to revoke")
        case .accountNotFound:
            RPCError(Platform.ErrorReason.malformedToken, message: "the token's subject is not an account id")
        case .restaurantNotFound:
            RPCError(Production.ErrorReason.restaurantNotFound, message: "no such restaurant")
        case .scheduleConflict(let kind, let episodes):
            RPCError(Production.ErrorReason.scheduleConflict,
                     message: kind == "restaurant" ? "the restaurant is booked for another shoot then"
                         : "someone cast in it is shooting another episode then",
                     details: ["kind": kind, "episode_ids": episodes.joined(separator: ",")])
        case .wardrobeItemNotFound:
            RPCError(Production.ErrorReason.wardrobeItemNotFound, message: "no such wardrobe item")
        case .matchNotFound:
            RPCError(Production.ErrorReason.matchNotFound, message: "no such match, or it has ended")
        case .dateNotFound:
            RPCError(Production.ErrorReason.dateNotFound, message: "no such date")
        case .dateState(let status):
            RPCError(Production.ErrorReason.dateState, message: "the date is \(status)", details: ["status": status])
        case .cannotConfirmOwnDate:
            RPCError(Production.ErrorReason.cannotConfirmOwnDate, message: "the other person of the match confirms the date")
        case .consentTextSuperseded:
            RPCError(Production.ErrorReason.consentTextSuperseded,
                     message: "this text was an earlier version; a superseded text does not return")
        case .shootNotScheduled:
            RPCError(Production.ErrorReason.shootNotScheduled, message: "schedule the shoot at a restaurant before confirming it")
        case .alreadyReviewed:
            RPCError(Production.ErrorReason.alreadyReviewed, message: "you have reviewed this date")
        case .scriptFinal:
            RPCError(Production.ErrorReason.scriptFinal, message: "the script is final; edit it by hand")
        case .scriptNotFound:
            RPCError(Production.ErrorReason.scriptNotFound, message: "no script for this episode and platform yet")
        }
    }
}

/// The points ledger's failures.
enum PointsError: Error, Sendable, Equatable, RPCErrorConvertible {
    case appNotSupported(String)
    case invalid(String)
    case invalidPageToken

    var rpcError: RPCError {
        switch self {
        case .appNotSupported(let app):
            RPCError(Points.PointsErrorReason.pointsAppNotSupported, message: "\(app) has no points", details: ["app": app])
        case .invalid(let message):
            RPCError(Points.PointsErrorReason.pointsInvalidArgument, message: message)
        case .invalidPageToken:
            RPCError(Points.PointsErrorReason.pointsInvalidPageToken, message: "page_token is not one of ours")
        }
    }
}
