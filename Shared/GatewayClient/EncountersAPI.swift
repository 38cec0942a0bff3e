public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// The Unseen's encounters (`rendezvous.messaging.v1.Encounters`).
    public var encounters: EncountersAPI { EncountersAPI(runner: runner) }
}

/// The Encounters service as The Unseen calls it, as the signed-in anonymous account. The chat
/// stays on the devices: the app reports only how many messages it sent. Refusals carry
/// `error.encounterReason` (`.notMeaningfulYet`, `.acceptWindowClosed`, `.handshakeCodeMismatch`…).
public struct EncountersAPI: Sendable {
    let runner: CallRunner

    /// Every Encounters method the client calls, with its retry and authentication rules.
    enum Methods {
        /// Each call registers a new encounter: never resent.
        static let startEncounter = GatewayMethod("Encounters/StartEncounter", .write, .session)
        /// Joining again is a no-op.
        static let joinEncounter = GatewayMethod("Encounters/JoinEncounter", .idempotentWrite, .session)
        static let getEncounter = GatewayMethod("Encounters/GetEncounter", .read, .session)
        /// Counts only grow: a repeat changes nothing.
        static let reportMessages = GatewayMethod("Encounters/ReportMessages", .idempotentWrite, .session)
        /// A resend after a success would be refused (a Convergence is pending): sent once.
        static let proposeConvergence = GatewayMethod("Encounters/ProposeConvergence", .write, .session)
        /// A repeated answer returns the encounter as the first left it.
        static let answerConvergence = GatewayMethod("Encounters/AnswerConvergence", .idempotentWrite, .session)
        static let describeMeetup = GatewayMethod("Encounters/DescribeMeetup", .idempotentWrite, .session)
        static let confirmArrival = GatewayMethod("Encounters/ConfirmArrival", .idempotentWrite, .session)
        /// A resend after the codes matched would be refused (the container started): sent once.
        static let submitHandshakeCode = GatewayMethod("Encounters/SubmitHandshakeCode", .write, .session)
        static let submitArtifact = GatewayMethod("Encounters/SubmitArtifact", .write, .session)
        /// A second score is ALREADY_EXISTS: sent once.
        static let submitResonance = GatewayMethod("Encounters/SubmitResonance", .write, .session)
    }

    private var stub: EncountersClient { EncountersClient(client: runner.transport) }

    /// Registers a new encounter; hand its id to the other device, which joins with it.
    public func start(deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        try await runner.run(Methods.startEncounter, deadline: deadline) { [stub] options in
            try await stub.startEncounter(.init(), options: options)
        }
    }

    /// Joins the encounter the other device started: the digital container starts.
    public func join(_ encounterID: String, deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.JoinEncounterRequest(encounterID: encounterID)
        return try await runner.run(Methods.joinEncounter, deadline: deadline) { [stub] options in
            try await stub.joinEncounter(request, options: options)
        }
    }

    public func encounter(_ encounterID: String, deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.GetEncounterRequest(encounterID: encounterID)
        return try await runner.run(Methods.getEncounter, deadline: deadline) { [stub] options in
            try await stub.getEncounter(request, options: options)
        }
    }

    /// How many messages this device has sent in the encounter so far.
    public func reportMessages(_ sentCount: Int32, in encounterID: String,
                               deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.ReportMessagesRequest(encounterID: encounterID, sentCount: sentCount)
        return try await runner.run(Methods.reportMessages, deadline: deadline) { [stub] options in
            try await stub.reportMessages(request, options: options)
        }
    }

    public func proposeConvergence(_ encounterID: String,
                                   deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.ProposeConvergenceRequest(encounterID: encounterID)
        return try await runner.run(Methods.proposeConvergence, deadline: deadline) { [stub] options in
            try await stub.proposeConvergence(request, options: options)
        }
    }

    public func answerConvergence(_ encounterID: String, accept: Bool,
                                  deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.AnswerConvergenceRequest(encounterID: encounterID, accept: accept)
        return try await runner.run(Methods.answerConvergence, deadline: deadline) { [stub] options in
            try await stub.answerConvergence(request, options: options)
        }
    }

    public func describeMeetup(_ description: String, in encounterID: String,
                               deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.DescribeMeetupRequest(encounterID: encounterID, description: description)
        return try await runner.run(Methods.describeMeetup, deadline: deadline) { [stub] options in
            try await stub.describeMeetup(request, options: options)
        }
    }

    public func confirmArrival(_ encounterID: String, deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.ConfirmArrivalRequest(encounterID: encounterID)
        return try await runner.run(Methods.confirmArrival, deadline: deadline) { [stub] options in
            try await stub.confirmArrival(request, options: options)
        }
    }

    /// The one-time code both devices exchanged when they met.
    public func submitHandshakeCode(_ code: String, in encounterID: String,
                                    deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.SubmitHandshakeCodeRequest(encounterID: encounterID, code: code)
        return try await runner.run(Methods.submitHandshakeCode, deadline: deadline) { [stub] options in
            try await stub.submitHandshakeCode(request, options: options)
        }
    }

    public func submitArtifact(_ text: String, in encounterID: String,
                               deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.SubmitArtifactRequest(encounterID: encounterID, text: text)
        return try await runner.run(Methods.submitArtifact, deadline: deadline) { [stub] options in
            try await stub.submitArtifact(request, options: options)
        }
    }

    /// The caller's resonance score, 0-100, once.
    public func submitResonance(_ score: Int32, in encounterID: String,
                                deadline: Duration? = nil) async throws(GatewayError) -> Encounters.Encounter {
        let request = Encounters.SubmitResonanceRequest(encounterID: encounterID, score: score)
        return try await runner.run(Methods.submitResonance, deadline: deadline) { [stub] options in
            try await stub.submitResonance(request, options: options)
        }
    }
}

extension RPCError {
    /// The reason as the encounters contract types it (`.notMeaningfulYet`, `.acceptWindowClosed`…).
    public var encounterReason: Encounters.EncounterErrorReason? { reason(as: Encounters.EncounterErrorReason.self) }
}
