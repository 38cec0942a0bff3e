public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// Momento's shared event cameras (`rendezvous.media.v1.MomentoEvents`).
    public var momento: MomentoAPI { MomentoAPI(runner: runner) }
}

/// Momento's events as an app calls them. `preview` works signed out (the QR code opens it
/// before sign-in); everything else is as the signed-in account. Refusals carry media.proto's
/// reasons (`error.mediaReason`): `INVALID_JOIN_CODE`, `EVENT_PHOTO_LIMIT_REACHED`...
public struct MomentoAPI: Sendable {
    let runner: CallRunner

    /// Every MomentoEvents method the client calls, with its retry and authentication rules.
    enum Methods {
        /// Not retried: a lost answer would leave a second event behind.
        static let createEvent = GatewayMethod("MomentoEvents/CreateEvent", .write, .session)
        /// Not retried: each preview counts a view of the code.
        static let previewEvent = GatewayMethod("MomentoEvents/PreviewEvent", .write, .none)
        /// Joining again changes nothing.
        static let joinEvent = GatewayMethod("MomentoEvents/JoinEvent", .idempotentWrite, .session)
        static let getEvent = GatewayMethod("MomentoEvents/GetEvent", .read, .session)
        /// Adding the same blob again returns the photo it made.
        static let addEventPhoto = GatewayMethod("MomentoEvents/AddEventPhoto", .idempotentWrite, .session)
        static let listEventPhotos = GatewayMethod("MomentoEvents/ListEventPhotos", .read, .session)
        /// A repeat finds nothing left to delete (PHOTO_NOT_FOUND): not retried.
        static let deleteEventPhoto = GatewayMethod("MomentoEvents/DeleteEventPhoto", .write, .session)
        static let setMemberRole = GatewayMethod("MomentoEvents/SetMemberRole", .idempotentWrite, .session)
        static let getJoinCodeStats = GatewayMethod("MomentoEvents/GetJoinCodeStats", .read, .session)
    }

    private var stub: MomentoEventsClient { MomentoEventsClient(client: runner.transport) }

    /// Creates an event; the caller is its creator. Its `joinLink` is what the QR code shows.
    public func create(_ request: Momento.CreateEventRequest, deadline: Duration? = nil) async throws(GatewayError) -> Momento.MomentoEvent {
        try await runner.run(Methods.createEvent, deadline: deadline) { [stub] options in
            try await stub.createEvent(request, options: options)
        }
    }

    /// What a join code opens, signed in or not.
    public func preview(joinCode: String, deadline: Duration? = nil) async throws(GatewayError) -> Momento.EventPreview {
        try await runner.run(Methods.previewEvent, deadline: deadline) { [stub] options in
            try await stub.previewEvent(.init(joinCode: joinCode), options: options)
        }
    }

    public func join(joinCode: String, invitedBy: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Momento.MomentoEvent {
        try await runner.run(Methods.joinEvent, deadline: deadline) { [stub] options in
            try await stub.joinEvent(.init(joinCode: joinCode, invitedBy: invitedBy), options: options)
        }
    }

    public func event(_ eventID: String, deadline: Duration? = nil) async throws(GatewayError) -> Momento.MomentoEvent {
        try await runner.run(Methods.getEvent, deadline: deadline) { [stub] options in
            try await stub.getEvent(.init(eventID: eventID), options: options)
        }
    }

    /// Adds one of the caller's uploaded photos (`media.upload`) to the event.
    public func addPhoto(blobID: String, to eventID: String, deadline: Duration? = nil) async throws(GatewayError) -> Momento.EventPhoto {
        try await runner.run(Methods.addEventPhoto, deadline: deadline) { [stub] options in
            try await stub.addEventPhoto(.init(eventID: eventID, blobID: blobID), options: options)
        }
    }

    /// One page of the caller's own photos before the reveal, of the whole gallery after it.
    public func photos(of eventID: String, pageSize: Int32 = 0, pageToken: String = "",
                       deadline: Duration? = nil) async throws(GatewayError) -> Momento.ListEventPhotosResponse {
        let request = Momento.ListEventPhotosRequest(eventID: eventID, pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.listEventPhotos, deadline: deadline) { [stub] options in
            try await stub.listEventPhotos(request, options: options)
        }
    }

    public func deletePhoto(_ photoID: String, of eventID: String, deadline: Duration? = nil) async throws(GatewayError) {
        _ = try await runner.run(Methods.deleteEventPhoto, deadline: deadline) { [stub] options in
            try await stub.deleteEventPhoto(.init(eventID: eventID, photoID: photoID), options: options)
        }
    }

    public func setRole(_ role: Momento.MemberRole, of accountID: String, in eventID: String,
                        deadline: Duration? = nil) async throws(GatewayError) -> Momento.EventMember {
        try await runner.run(Methods.setMemberRole, deadline: deadline) { [stub] options in
            try await stub.setMemberRole(.init(eventID: eventID, accountID: accountID, role: role), options: options)
        }
    }

    public func joinCodeStats(_ eventID: String, deadline: Duration? = nil) async throws(GatewayError) -> Momento.JoinCodeStats {
        try await runner.run(Methods.getJoinCodeStats, deadline: deadline) { [stub] options in
            try await stub.getJoinCodeStats(.init(eventID: eventID), options: options)
        }
    }

    /// The event's counters now, then on every join, photo added or deleted, and the reveal,
    /// until the task is cancelled. Not resumed after a broken connection: watch again (the
    /// first value is the current state).
    public func watchCounters(_ eventID: String) -> AsyncThrowingStream<Momento.EventCounters, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Momento.EventCounters, any Error>.makeStream()
        let task = Task { [runner, stub] in
            do {
                let token = try await runner.sessions.accessToken()
                let call = try await stub.watchEventCounters(.init(eventID: eventID), options: .bearer(token))
                for try await counters in call { continuation.yield(counters) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: RPCError.gateway(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
