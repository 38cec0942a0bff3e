import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.discovery.v1.Discovery`: the feed, swipes with their daily allowance, matches
/// and likes received. Rules are documented in discovery.proto.
struct DiscoveryService: DiscoveryProvider {
    let pool: PostgresPool
    let tiers: TierCatalog
    let matches: MatchStore
    let settings: DiscoverySettings
    /// Identity's hashed-contact matching, called with discovery's own credential (nil: none configured).
    let contacts: ContactMatcher
    /// Instagram's Graph endpoint, for ImportInstagram.
    let instagram: InstagramGraph
    /// Feed pages, from viewers' windows kept in memory while they hold.
    let feeds: FeedPages
    /// Records swipes in batches (group commit, `GroupCommitQueue`).
    let swipes: GroupCommitQueue<SwipeStore.Swipe, SwipeStore.Outcome>

    func getFeed(_ request: Discovery.GetFeedRequest, context: ServerCallContext) async throws -> Discovery.GetFeedResponse {
        let caller = try context.requireAccount()
        let viewer = try caller.accountUUID()
        let filters = try FeedFilters(request.filters)
        let pageSize = try PageCursor.pageSize(request.pageSize, defaultSize: 20, maximumSize: 50,
                                               invalid: DiscoveryError.invalidPageSize)
        let after = try FeedToken.parse(request.pageToken)
        if filters.isAdvanced, settings.appsGatingFilters.contains(caller.app) {
            let (tier, entitlements) = try await tiers.entitlements(app: caller.app, tier: caller.tier)
            guard entitlements.advancedFilters else { throw DiscoveryError.filtersRequireTier(tier: tier) }
        }
        let priority = try await tiers.priorityTiers(app: caller.app)
        let asOf = after?.asOf ?? Int64(Date().timeIntervalSince1970 * 1_000_000)
        let rows = try await feeds.page(.init(viewer: viewer, app: caller.app, asOf: asOf, filters: filters,
                                              priorityTiers: priority, after: after, limit: pageSize + 1))
        let page = rows.prefix(pageSize)
        var response = Discovery.GetFeedResponse(cards: page.map(\.card))
        if rows.count > pageSize, let last = page.last, let id = UUID(uuidString: last.card.accountID) {
            response.nextPageToken = FeedToken(asOf: asOf, score: last.score, id: id).token
        }
        return response
    }

    func swipe(_ request: Discovery.SwipeRequest, context: ServerCallContext) async throws -> Discovery.SwipeResponse {
        let caller = try context.requireAccount()
        let swiper = try caller.accountUUID()
        guard let target = UUID(uuidString: request.accountID) else { throw DiscoveryError.invalidAccountID }
        guard target != swiper else { throw DiscoveryError.cannotSwipeSelf }
        guard [.pass, .like, .superLike].contains(request.action) else { throw DiscoveryError.invalidAction }
        let (tier, entitlements) = try await tiers.entitlements(app: caller.app, tier: caller.tier)
        let swipe = SwipeCall(record: SwipeStore.Swipe(action: request.action, swiper: swiper, target: target, app: caller.app,
                                                       quiz: settings.isQuiz(app: caller.app, role: caller.role),
                                                       limit: Self.allowance(of: request.action, entitlements).limit,
                                                       day: settings.clock.today()),
                              tier: tier, entitlements: entitlements)
        // Most swipes make no match: recorded with the swipes that arrived meanwhile, one statement
        // and one commit for them all. A like that completes a match is recorded again in a
        // transaction with the match, so both or neither are kept.
        if let response = try await answer(swipe, try await pool.withTransactionSpan { try await swipes.submit(swipe.record) }, on: nil) {
            return response
        }
        return try await pool.withTransaction { connection in
            // Non-nil: with matchAllowed the swipe is recorded or refused.
            let outcome = try await SwipeStore.swipe(swipe.record, matchAllowed: true, on: connection)
            return try await self.answer(swipe, outcome, on: connection)!
        }
    }

    /// One swipe as `swipe` received it.
    private struct SwipeCall {
        var record: SwipeStore.Swipe
        var tier: String
        var entitlements: Membership.Entitlements
    }

    /// The allowance a swipe of `action` counts against: its name in QUOTA_EXCEEDED and the day's
    /// limit (-1: none; a pass counts against none).
    private static func allowance(of action: Discovery.SwipeAction, _ entitlements: Membership.Entitlements)
        -> (kind: String, limit: Int32) {
        switch action {
        case .superLike: ("super_likes", entitlements.superLikesPerDay)
        case .pass: ("likes", -1)
        default: ("likes", entitlements.likesPerDay)
        }
    }

    /// Answers `swipe` from what `SwipeStore` recorded; nil when it would complete a match (nothing
    /// was written). `connection` is the match's transaction when the swipe was recorded with
    /// matchAllowed, and nil when it went in a batch without.
    private func answer(_ swipe: SwipeCall, _ outcome: SwipeStore.Outcome, on connection: Connection?) async throws
        -> Discovery.SwipeResponse? {
        let record = swipe.record
        var response = Discovery.SwipeResponse()
        response.quiz = record.quiz
        let accountID = record.target.uuidString.lowercased()
        switch outcome {
        case .existing(let existing, let used):
            guard existing.action == record.action else {
                throw DiscoveryError.alreadySwiped(action: Self.name(of: existing.action))
            }
            response.swipe = Discovery.Swipe(accountID: accountID, action: existing.action,
                                             swipedAt: Timestamp(microseconds: existing.createdAt))
            let find = { (connection: Connection) in try await self.matches.find(between: record.swiper, and: record.target, on: connection) }
            let match = if let connection { try await find(connection) } else { try await pool.withConnection(find) }
            response.match = match?.message
            response.quota = Self.quota(tier: swipe.tier, swipe.entitlements, used: used, day: record.day)
        case .hidden:
            throw DiscoveryError.userNotFound
        case .allowanceSpent:
            let (kind, limit) = Self.allowance(of: record.action, swipe.entitlements)
            throw DiscoveryError.quotaExceeded(kind: kind, limit: limit, resetsAt: record.day.resetsAt)
        case .wouldMatch:
            return nil
        case .recorded(let swipedAt, let likedBack, let used):
            response.swipe = Discovery.Swipe(accountID: accountID, action: record.action,
                                             swipedAt: Timestamp(microseconds: swipedAt))
            // A like liked back is recorded only with matchAllowed, on the match's transaction.
            if record.action != .pass, !record.quiz, let theirs = likedBack, let connection {
                let match = try await matches.create(completer: record.swiper, other: record.target, app: record.app,
                                                     superLike: theirs == .superLike || record.action == .superLike,
                                                     on: connection)
                response.match = match.entry.message
            }
            response.quota = Self.quota(tier: swipe.tier, swipe.entitlements, used: used, day: record.day)
        }
        return response
    }

    func getQuota(_ request: Discovery.GetQuotaRequest, context: ServerCallContext) async throws -> Discovery.Quota {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let (tier, entitlements) = try await tiers.entitlements(app: caller.app, tier: caller.tier)
        let today = settings.clock.today()
        let used = try await pool.withConnection { try await SwipeStore.usage(of: account, day: today, on: $0) }
        return Self.quota(tier: tier, entitlements, used: used, day: today)
    }

    func listMatches(_ request: Discovery.ListMatchesRequest, context: ServerCallContext) async throws
        -> Discovery.ListMatchesResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let (pageSize, cursor) = try Self.page(request.pageSize, request.pageToken)
        let entries = try await pool.withConnection { connection in
            try await matches.list(of: account, after: cursor, limit: pageSize + 1, on: connection)
        }
        let page = entries.prefix(pageSize)
        var response = Discovery.ListMatchesResponse(matches: page.map(\.message))
        if entries.count > pageSize, let last = page.last {
            response.nextPageToken = PageCursor(microseconds: last.createdAt, id: last.id).token
        }
        return response
    }

    func unmatch(_ request: Discovery.UnmatchRequest, context: ServerCallContext) async throws -> Discovery.UnmatchResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        guard let id = UUID(uuidString: request.matchID) else { throw DiscoveryError.invalidMatchID }
        let ended = try await pool.withTransaction { connection in
            try await matches.unmatch(id, by: account, app: caller.app, on: connection)
        }
        guard let ended else { throw DiscoveryError.matchNotFound }
        return Discovery.UnmatchResponse(unmatched: ended)
    }

    func getLikesReceived(_ request: Discovery.GetLikesReceivedRequest, context: ServerCallContext) async throws
        -> Discovery.LikesReceived {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let (pageSize, cursor) = try Self.page(request.pageSize, request.pageToken)
        let (_, entitlements) = try await tiers.entitlements(app: caller.app, tier: caller.tier)
        let visibility = Discovery.LikesVisibility(rawValue: entitlements.seeWhoLikedYou.rawValue)
        let (count, likes) = try await pool.withConnection { connection in
            (try await LikesStore.count(of: account, app: caller.app, on: connection),
             visibility == .blurred || visibility == .clear
                ? try await LikesStore.list(of: account, app: caller.app, after: cursor, limit: pageSize + 1, on: connection)
                : [])
        }
        let page = likes.prefix(pageSize)
        var response = Discovery.LikesReceived()
        response.count = Int32(clamping: count)
        response.visibility = visibility == .unspecified ? .hidden : visibility
        response.likes = page.map { like in
            var received = Discovery.LikeReceived()
            received.superLike = like.superLike
            received.likedAt = Timestamp(microseconds: like.likedAt)
            if visibility == .clear {
                received.accountID = like.liker.uuidString.lowercased()
                received.publicName = like.publicName
                received.photoIDs = like.photoIDs
            } else {
                received.photoIDs = Array(like.photoIDs.prefix(1))
            }
            return received
        }
        if likes.count > pageSize, let last = page.last {
            // The like's own id, never the liker's: a blurred page must not name them.
            response.nextPageToken = PageCursor(microseconds: last.likedAt, id: last.id).token
        }
        return response
    }

    func getTasteProfile(_ request: Discovery.GetTasteProfileRequest, context: ServerCallContext) async throws
        -> Discovery.TasteProfile {
        let account = try context.requireAccount().accountUUID()
        return try await pool.withConnection { try await TasteStore.profile(of: account, on: $0) }
    }

    func getSettings(_ request: Discovery.GetSettingsRequest, context: ServerCallContext) async throws
        -> Discovery.DiscoverySettings {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let (_, entitlements) = try await tiers.entitlements(app: caller.app, tier: caller.tier)
        return try await pool.withConnection { connection in
            try await MemberSettingsStore.settings(of: account, boostsPerMonth: entitlements.boostsPerMonth, on: connection)
        }
    }

    func updateSettings(_ request: Discovery.UpdateSettingsRequest, context: ServerCallContext) async throws
        -> Discovery.DiscoverySettings {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let (tier, entitlements) = try await tiers.entitlements(app: caller.app, tier: caller.tier)
        if request.incognito, !entitlements.incognito { throw DiscoveryError.tierRequired(feature: "incognito", tier: tier) }
        return try await pool.withTransaction { connection in
            try await MemberSettingsStore.setIncognito(request.incognito, of: account, app: caller.app, on: connection)
            return try await MemberSettingsStore.settings(of: account, boostsPerMonth: entitlements.boostsPerMonth, on: connection)
        }
    }

    func boost(_ request: Discovery.BoostRequest, context: ServerCallContext) async throws -> Discovery.DiscoverySettings {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let (tier, entitlements) = try await tiers.entitlements(app: caller.app, tier: caller.tier)
        guard entitlements.boostsPerMonth != 0 else { throw DiscoveryError.tierRequired(feature: "boosts", tier: tier) }
        return try await pool.withTransaction { connection in
            try await MemberSettingsStore.lock(account, app: caller.app, on: connection)
            let current = try await MemberSettingsStore.settings(of: account, boostsPerMonth: entitlements.boostsPerMonth,
                                                                 on: connection)
            if current.boostedUntil != nil { return current }
            guard current.boostsRemaining != 0 else {
                throw DiscoveryError.quotaExceeded(kind: "boosts", limit: entitlements.boostsPerMonth,
                                                   resetsAt: Self.nextUTCMonth())
            }
            try await MemberSettingsStore.startBoost(of: account, on: connection)
            return try await MemberSettingsStore.settings(of: account, boostsPerMonth: entitlements.boostsPerMonth, on: connection)
        }
    }

    func importContacts(_ request: Discovery.ImportContactsRequest, context: ServerCallContext) async throws
        -> Discovery.ImportContactsResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        guard request.hashes.count <= ContactHashes.maximumPerCall else {
            throw DiscoveryError.invalidContacts("at most \(ContactHashes.maximumPerCall) hashes per call")
        }
        guard request.hashes.allSatisfy(ContactHashes.isWellFormed) else {
            throw DiscoveryError.invalidContacts("hashes are lowercase hex SHA-256 of the normalized email or E.164 phone")
        }
        let named = try await contacts.members(app: caller.app, hashes: Array(Set(request.hashes)))
        let (members, added) = try await pool.withTransaction { connection in
            let members = try await ConnectionStore.reachable(from: account, among: named, app: caller.app, on: connection)
            return (members, try await ConnectionStore.connect(account, with: members, source: .contacts, on: connection))
        }
        return Discovery.ImportContactsResponse(matched: Int32(members.count), connectionsAdded: Int32(added))
    }

    func importInstagram(_ request: Discovery.ImportInstagramRequest, context: ServerCallContext) async throws
        -> Discovery.ImportInstagramResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let token = request.accessToken.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, token.utf8.count <= 4096 else { throw DiscoveryError.instagramTokenInvalid }
        let instagramAccount = try await instagram.account(token: token)
        let (members, added) = try await pool.withTransaction { connection in
            let linked = try await InstagramStore.link(account, app: caller.app, to: instagramAccount, on: connection)
            let members = try await ConnectionStore.reachable(from: account, among: linked, app: caller.app, on: connection)
            return (members, try await ConnectionStore.connect(account, with: members, source: .instagram, on: connection))
        }
        var response = Discovery.ImportInstagramResponse()
        response.instagramUserID = instagramAccount.id
        response.instagramUsername = instagramAccount.username
        response.matched = Int32(members.count)
        response.connectionsAdded = Int32(added)
        return response
    }

    /// Unix seconds of the first instant of next month in UTC, when monthly allowances start again.
    static func nextUTCMonth(now: Date = Date()) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!  // UTC always exists
        let start = calendar.dateInterval(of: .month, for: now)!  // every date lies in a month
        return Int64(start.end.timeIntervalSince1970)
    }

    /// A list's page size (0: 50, at most 100) and where it resumes, or their reasons.
    static func page(_ size: Int32, _ token: String) throws(DiscoveryError) -> (size: Int, after: PageCursor?) {
        (try PageCursor.pageSize(size, defaultSize: 50, maximumSize: 100, invalid: DiscoveryError.invalidPageSize),
         try PageCursor.parse(token, invalid: DiscoveryError.invalidPageToken))
    }

    static func quota(tier: String, _ entitlements: Membership.Entitlements, used: (likes: Int32, superLikes: Int32),
                      day: AllowanceDay) -> Discovery.Quota {
        func remaining(_ limit: Int32, _ used: Int32) -> Int32 { limit < 0 ? -1 : max(0, limit - used) }
        var quota = Discovery.Quota()
        quota.likesRemaining = remaining(entitlements.likesPerDay, used.likes)
        quota.superLikesRemaining = remaining(entitlements.superLikesPerDay, used.superLikes)
        quota.resetsAt = Timestamp(seconds: day.resetsAt)
        quota.tier = tier
        return quota
    }

    static func name(of action: Discovery.SwipeAction) -> String {
        switch action {
        case .pass: "PASS"
        case .like: "LIKE"
        case .superLike: "SUPER_LIKE"
        default: "UNSPECIFIED"
        }
    }
}

extension AuthenticatedAccount {
    /// The caller's account id as a UUID; a token whose subject is not one is refused.
    func accountUUID() throws(DiscoveryError) -> UUID {
        guard let id = UUID(uuidString: accountID) else { throw .accountNotFound }
        return id
    }
}
