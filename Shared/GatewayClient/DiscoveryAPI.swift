public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// The feed, swipes, matches and likes received (`rendezvous.discovery.v1.Discovery`).
    public var discovery: DiscoveryAPI { DiscoveryAPI(runner: runner) }
}

/// The Discovery service as an app calls it, always as the signed-in account. Another app's
/// account, or one blocked either way, is NOT_FOUND `USER_NOT_FOUND`; a spent daily allowance
/// is RESOURCE_EXHAUSTED `QUOTA_EXCEEDED` with `resets_at` in the error's details.
public struct DiscoveryAPI: Sendable {
    let runner: CallRunner

    /// Every Discovery method the client calls, with its retry and authentication rules.
    enum Methods {
        static let getFeed = GatewayMethod("Discovery/GetFeed", .read, .session)
        /// Repeating a swipe returns the first (and its match), so an unanswered one is resent.
        static let swipe = GatewayMethod("Discovery/Swipe", .idempotentWrite, .session)
        static let getQuota = GatewayMethod("Discovery/GetQuota", .read, .session)
        static let listMatches = GatewayMethod("Discovery/ListMatches", .read, .session)
        /// A repeat answers `unmatched = false`: the match stays ended.
        static let unmatch = GatewayMethod("Discovery/Unmatch", .idempotentWrite, .session)
        static let getLikesReceived = GatewayMethod("Discovery/GetLikesReceived", .read, .session)
        static let getTasteProfile = GatewayMethod("Discovery/GetTasteProfile", .read, .session)
        static let getSettings = GatewayMethod("Discovery/GetSettings", .read, .session)
        /// Sets the value given: the same result however often it is sent.
        static let updateSettings = GatewayMethod("Discovery/UpdateSettings", .idempotentWrite, .session)
        /// A repeat while the boost runs returns it and spends nothing.
        static let boost = GatewayMethod("Discovery/Boost", .idempotentWrite, .session)
        /// Connections are a set: importing the same hashes again adds nothing.
        static let importContacts = GatewayMethod("Discovery/ImportContacts", .idempotentWrite, .session)
        /// The same token imported again links the same account and adds nothing.
        static let importInstagram = GatewayMethod("Discovery/ImportInstagram", .idempotentWrite, .session)
    }

    private var stub: DiscoveryClient { DiscoveryClient(client: runner.transport) }

    /// One page of the feed, best first; pass `nextPageToken` for the next (empty at the end).
    public func feed(pageSize: Int32 = 0, pageToken: String = "", filters: Discovery.FeedFilters? = nil,
                     deadline: Duration? = nil) async throws(GatewayError) -> Discovery.GetFeedResponse {
        let request = Discovery.GetFeedRequest(pageSize: pageSize, pageToken: pageToken, filters: filters)
        return try await runner.run(Methods.getFeed, deadline: deadline) { [stub] options in
            try await stub.getFeed(request, options: options)
        }
    }

    /// Likes, passes or super-likes an account; `match` is set when this like completed one.
    public func swipe(accountID: String, _ action: Discovery.SwipeAction,
                      deadline: Duration? = nil) async throws(GatewayError) -> Discovery.SwipeResponse {
        let request = Discovery.SwipeRequest(accountID: accountID, action: action)
        return try await runner.run(Methods.swipe, deadline: deadline) { [stub] options in
            try await stub.swipe(request, options: options)
        }
    }

    /// What is left of today's likes and super-likes, and when they reset.
    public func quota(deadline: Duration? = nil) async throws(GatewayError) -> Discovery.Quota {
        try await runner.run(Methods.getQuota, deadline: deadline) { [stub] options in
            try await stub.getQuota(.init(), options: options)
        }
    }

    /// One page of the current matches, newest first.
    public func matches(pageSize: Int32 = 0, pageToken: String = "",
                        deadline: Duration? = nil) async throws(GatewayError) -> Discovery.ListMatchesResponse {
        let request = Discovery.ListMatchesRequest(pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.listMatches, deadline: deadline) { [stub] options in
            try await stub.listMatches(request, options: options)
        }
    }

    /// Ends a match for both; false when it had already ended.
    @discardableResult
    public func unmatch(matchID: String, deadline: Duration? = nil) async throws(GatewayError) -> Bool {
        let request = Discovery.UnmatchRequest(matchID: matchID)
        return try await runner.run(Methods.unmatch, deadline: deadline) { [stub] options in
            try await stub.unmatch(request, options: options).unmatched
        }
    }

    /// Who liked the caller: the count, and the people as the tier shows them.
    public func likesReceived(pageSize: Int32 = 0, pageToken: String = "",
                              deadline: Duration? = nil) async throws(GatewayError) -> Discovery.LikesReceived {
        let request = Discovery.GetLikesReceivedRequest(pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.getLikesReceived, deadline: deadline) { [stub] options in
            try await stub.getLikesReceived(request, options: options)
        }
    }
    /// What the caller's swipes say about their tastes (FirstDate's quiz).
    public func tasteProfile(deadline: Duration? = nil) async throws(GatewayError) -> Discovery.TasteProfile {
        try await runner.run(Methods.getTasteProfile, deadline: deadline) { [stub] options in
            try await stub.getTasteProfile(.init(), options: options)
        }
    }

    /// Incognito, a running boost, and the boosts left this month.
    public func settings(deadline: Duration? = nil) async throws(GatewayError) -> Discovery.DiscoverySettings {
        try await runner.run(Methods.getSettings, deadline: deadline) { [stub] options in
            try await stub.getSettings(.init(), options: options)
        }
    }

    /// Turns incognito on or off (PERMISSION_DENIED `TIER_REQUIRED` for tiers without it).
    public func setIncognito(_ incognito: Bool, deadline: Duration? = nil) async throws(GatewayError) -> Discovery.DiscoverySettings {
        let request = Discovery.UpdateSettingsRequest(incognito: incognito)
        return try await runner.run(Methods.updateSettings, deadline: deadline) { [stub] options in
            try await stub.updateSettings(request, options: options)
        }
    }

    /// Starts one of the month's boosts, or returns the one running.
    public func boost(deadline: Duration? = nil) async throws(GatewayError) -> Discovery.DiscoverySettings {
        try await runner.run(Methods.boost, deadline: deadline) { [stub] options in
            try await stub.boost(.init(), options: options)
        }
    }

    /// Connects the member with the people of their address book who are members too, from
    /// hashes made on the device (`ContactHash`); at most 1,000 per call.
    @discardableResult
    public func importContacts(_ hashes: [String], deadline: Duration? = nil) async throws(GatewayError)
        -> Discovery.ImportContactsResponse {
        let request = Discovery.ImportContactsRequest(hashes: hashes)
        return try await runner.run(Methods.importContacts, deadline: deadline) { [stub] options in
            try await stub.importContacts(request, options: options)
        }
    }

    /// Links the member's Instagram account (the access token of the app's Instagram login) and
    /// connects them with the members they follow or who follow them there. Errors:
    /// `INSTAGRAM_TOKEN_INVALID` (log in to Instagram again), `INSTAGRAM_UNAVAILABLE` (try later).
    @discardableResult
    public func importInstagram(accessToken: String, deadline: Duration? = nil) async throws(GatewayError)
        -> Discovery.ImportInstagramResponse {
        let request = Discovery.ImportInstagramRequest(accessToken: accessToken)
        return try await runner.run(Methods.importInstagram, deadline: deadline) { [stub] options in
            try await stub.importInstagram(request, options: options)
        }
    }
}

extension RPCError {
    /// The Discovery reason of a failed call, to `switch` on; nil for another service's.
    public var discoveryReason: Discovery.ErrorReason? { reason(as: Discovery.ErrorReason.self) }
}
