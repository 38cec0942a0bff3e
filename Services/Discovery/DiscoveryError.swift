import Contracts
import RPC

/// Discovery's domain failures and the one place that decides their gRPC status and reason.
enum DiscoveryError: Error, Sendable, Equatable, RPCErrorConvertible {
    case invalidAccountID
    case cannotSwipeSelf
    case invalidAction
    case userNotFound
    case alreadySwiped(action: String)
    case quotaExceeded(kind: String, limit: Int32, resetsAt: Int64)
    case invalidFilter(String)
    case filtersRequireTier(tier: String)
    case invalidPageToken
    case invalidPageSize
    case invalidMatchID
    case matchNotFound
    case accountNotFound
    case identityUnavailable
    case tierRequired(feature: String, tier: String)
    case invalidContacts(String)
    case instagramTokenInvalid
    case instagramUnavailable(cause: String)

    var rpcError: RPCError {
        switch self {
        case .invalidAccountID:
            RPCError(Discovery.ErrorReason.invalidAccountID, message: "account_id is not a UUID")
        case .cannotSwipeSelf:
            RPCError(Discovery.ErrorReason.cannotSwipeSelf, message: "you cannot swipe on yourself")
        case .invalidAction:
            RPCError(Discovery.ErrorReason.invalidAction, message: "action must be PASS, LIKE or SUPER_LIKE")
        case .userNotFound:
            RPCError(Discovery.ErrorReason.userNotFound, message: "no such person")
        case .alreadySwiped(let action):
            RPCError(Discovery.ErrorReason.alreadySwiped, message: "you already answered this person",
                     details: ["previous_action": action])
        case .quotaExceeded(let kind, let limit, let resetsAt):
            RPCError(Discovery.ErrorReason.quotaExceeded, message: "no \(kind) left today",
                     details: ["quota": kind, "limit": String(limit), "resets_at": String(resetsAt)])
        case .invalidFilter(let message):
            RPCError(Discovery.ErrorReason.invalidFilter, message: message)
        case .filtersRequireTier(let tier):
            RPCError(Discovery.ErrorReason.filtersRequireTier, message: "filters need a tier with advanced filters",
                     details: ["tier": tier])
        case .invalidPageToken:
            RPCError(Discovery.ErrorReason.invalidPageToken, message: "page_token is not one of ours")
        case .invalidPageSize:
            RPCError(Discovery.ErrorReason.invalidPageSize, message: "page_size must not be negative")
        case .invalidMatchID:
            RPCError(Discovery.ErrorReason.invalidMatchID, message: "match_id is not a UUID")
        case .matchNotFound:
            RPCError(Discovery.ErrorReason.matchNotFound, message: "no such match")
        case .accountNotFound:
            RPCError(Platform.ErrorReason.malformedToken, message: "the token's subject is not an account id")
        case .tierRequired(let feature, let tier):
            RPCError(Discovery.ErrorReason.tierRequired, message: "\(feature) is not part of your membership",
                     details: ["feature": feature, "tier": tier])
        case .invalidContacts(let message):
            RPCError(Discovery.ErrorReason.invalidContacts, message: message)
        case .instagramTokenInvalid:
            RPCError(Discovery.ErrorReason.instagramTokenInvalid,
                     message: "Instagram did not accept the access token; sign in to Instagram again")
        case .instagramUnavailable(let cause):
            RPCError(Discovery.ErrorReason.instagramUnavailable, message: "Instagram could not be reached; try again shortly",
                     details: ["cause": cause])
        case .identityUnavailable:
            RPCError(Discovery.ErrorReason.identityUnavailable, message: "tiers are unavailable; try again shortly")
        }
    }
}
