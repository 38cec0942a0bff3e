import Contracts
import RPC

/// Encounters' domain failures and their gRPC status and reason (encounters.proto).
enum EncounterError: Error, Sendable, Equatable, RPCErrorConvertible {
    case invalidEncounterID
    case notFound
    case notAParticipant
    case appNotSupported(String)
    case full
    case ownEncounter
    case wrongStage(Int16)
    case invalidMessageCount
    case notMeaningfulYet(secondsLeft: Int64, mine: Int32, theirs: Int32)
    case notTheInvitee
    case acceptWindowClosed
    case notTheProposer
    case invalidMeetupDescription
    case meetupNotDescribed
    case invalidHandshakeCode
    case handshakeCodeMismatch
    case handshakeExpired
    case inPersonNotOver
    case invalidArtifact
    case artifactMismatch
    case cooldownNotOver
    case invalidResonanceScore
    case resonanceAlreadySubmitted

    typealias Reason = Encounters.EncounterErrorReason

    static let stageNames: [Int: String] = [1: "WAITING", 2: "CHATTING", 3: "PROPOSED", 4: "MEETING", 5: "IN_PERSON",
                                            6: "CLOSING", 7: "RESOLVED", 8: "ENDED"]

    var rpcError: RPCError {
        switch self {
        case .invalidEncounterID: RPCError(Reason.invalidEncounterID, message: "encounter_id is not a UUID")
        case .notFound: RPCError(Reason.encounterNotFound, message: "no such encounter")
        case .notAParticipant: RPCError(Reason.encounterNotAParticipant, message: "this encounter is not yours")
        case .appNotSupported(let app):
            RPCError(Reason.encounterAppNotSupported, message: "\(app) has no encounters", details: ["app": app])
        case .full: RPCError(Reason.encounterFull, message: "someone else joined this encounter")
        case .ownEncounter: RPCError(Reason.cannotJoinOwnEncounter, message: "the other device must join")
        case .wrongStage(let stage):
            RPCError(Reason.encounterWrongStage, message: "not possible at this stage of the encounter",
                     details: ["stage": Self.stageNames[Int(stage)] ?? String(stage)])
        case .invalidMessageCount: RPCError(Reason.invalidMessageCount, message: "sent_count must be 0-100000")
        case .notMeaningfulYet(let seconds, let mine, let theirs):
            RPCError(Reason.notMeaningfulYet, message: "the interaction is not meaningful yet",
                     details: ["seconds_left": String(seconds), "my_messages_needed": String(mine),
                               "their_messages_needed": String(theirs)])
        case .notTheInvitee: RPCError(Reason.notTheInvitee, message: "only the other side answers a Convergence")
        case .acceptWindowClosed: RPCError(Reason.acceptWindowClosed, message: "the time to answer has passed")
        case .notTheProposer: RPCError(Reason.notTheProposer, message: "only the proposer describes the meet-up")
        case .invalidMeetupDescription: RPCError(Reason.invalidMeetupDescription, message: "description must be 1-500 characters")
        case .meetupNotDescribed: RPCError(Reason.meetupNotDescribed, message: "the meet-up has not been described yet")
        case .invalidHandshakeCode: RPCError(Reason.invalidHandshakeCode, message: "code must be 4-64 characters")
        case .handshakeCodeMismatch:
            RPCError(Reason.handshakeCodeMismatch, message: "the codes differ: both submit the code again")
        case .handshakeExpired: RPCError(Reason.handshakeExpired, message: "the handshake window has passed")
        case .inPersonNotOver: RPCError(Reason.inPersonNotOver, message: "the in-person timer is still running")
        case .invalidArtifact: RPCError(Reason.invalidArtifact, message: "text must be 1-500 characters")
        case .artifactMismatch: RPCError(Reason.artifactMismatch, message: "the texts differ: agree on one and submit again")
        case .cooldownNotOver: RPCError(Reason.cooldownNotOver, message: "resonance opens after the cooldown")
        case .invalidResonanceScore: RPCError(Reason.invalidResonanceScore, message: "score must be 0-100")
        case .resonanceAlreadySubmitted: RPCError(Reason.resonanceAlreadySubmitted, message: "your score is already in")
        }
    }
}
