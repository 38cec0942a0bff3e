public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// FirstDate's show: casting, episodes, consent and money (`rendezvous.production.v1`
    /// Casting, Episodes, Consent and Ledger). What a call may do depends on the account's role:
    /// producers (host, admin) run the show; viewers and applicants apply and watch.
    public var production: ProductionAPI { ProductionAPI(runner: runner) }

    /// The Unseen's points (`rendezvous.production.v1.Points`): balance and entries, never
    /// transferable.
    public var points: PointsAPI { PointsAPI(runner: runner) }
}

/// The production services as an app calls them, always as the signed-in account. Producer-only
/// methods answer others PERMISSION_DENIED `PRODUCER_ONLY`; pipelines move one step at a time
/// (FAILED_PRECONDITION `OUT_OF_ORDER` otherwise) and asking for the current step again is safe.
public struct ProductionAPI: Sendable {
    let runner: CallRunner

    /// Every production method the client calls, with its retry and authentication rules.
    enum Methods {
        /// Saving the same step again stores the same values.
        static let saveApplicationStep = GatewayMethod("Casting/SaveApplication", .idempotentWrite, .session)
        /// A repeat returns the submitted application unchanged.
        static let submitApplication = GatewayMethod("Casting/SubmitApplication", .idempotentWrite, .session)
        static let myApplication = GatewayMethod("Casting/GetMyApplication", .read, .session)
        static let applications = GatewayMethod("Casting/ListApplications", .read, .session)
        static let application = GatewayMethod("Casting/GetApplication", .read, .session)
        /// Asking for the status it already has returns it.
        static let setApplicationStatus = GatewayMethod("Casting/SetApplicationStatus", .idempotentWrite, .session)
        /// Assigning to the episode it is already in returns it.
        static let assignToEpisode = GatewayMethod("Casting/AssignToEpisode", .idempotentWrite, .session)
        /// A repeat is ALREADY_EXISTS `SEASON_EXISTS`: sent once.
        static let createSeason = GatewayMethod("Episodes/CreateSeason", .write, .session)
        static let seasons = GatewayMethod("Episodes/ListSeasons", .read, .session)
        /// A repeat is ALREADY_EXISTS `EPISODE_EXISTS`: sent once.
        static let createEpisode = GatewayMethod("Episodes/CreateEpisode", .write, .session)
        static let episode = GatewayMethod("Episodes/GetEpisode", .read, .session)
        static let episodes = GatewayMethod("Episodes/ListEpisodes", .read, .session)
        /// Asking for the stage it is at returns it; the income is posted once.
        static let advanceDeal = GatewayMethod("Episodes/AdvanceDeal", .idempotentWrite, .session)
        /// Asking for the status it is at returns it.
        static let advanceProduction = GatewayMethod("Episodes/AdvanceProduction", .idempotentWrite, .session)
        /// Sets the value given.
        static let setBehindTheGlass = GatewayMethod("Episodes/SetBehindTheGlass", .idempotentWrite, .session)
        /// Sets the values given.
        static let updateEpisode = GatewayMethod("Episodes/UpdateEpisode", .idempotentWrite, .session)
        static let currentConsentText = GatewayMethod("Consent/GetCurrentConsentText", .read, .session)
        /// Publishing the current text again returns it.
        static let publishConsentText = GatewayMethod("Consent/PublishConsentText", .idempotentWrite, .session)
        /// Each call stores a record: sent once.
        static let captureConsent = GatewayMethod("Consent/CaptureConsent", .write, .session)
        /// A repeat is FAILED_PRECONDITION `NO_STANDING_CONSENT`: sent once.
        static let revokeConsent = GatewayMethod("Consent/RevokeConsent", .write, .session)
        static let consentRecords = GatewayMethod("Consent/ListConsentRecords", .read, .session)
        static let myConsentRecords = GatewayMethod("Consent/ListMyConsentRecords", .read, .session)
        /// Each call stores an entry: sent once.
        static let addLedgerEntry = GatewayMethod("Ledger/AddLedgerEntry", .write, .session)
        static let ledgerEntries = GatewayMethod("Ledger/ListLedgerEntries", .read, .session)
        static let profitAndLoss = GatewayMethod("Ledger/GetProfitAndLoss", .read, .session)
        static let breakevenProjection = GatewayMethod("Ledger/GetBreakevenProjection", .read, .session)
        static let sponsorReport = GatewayMethod("Ledger/GetSponsorReport", .read, .session)
        static let restaurants = GatewayMethod("Studio/ListRestaurants", .read, .session)
        /// Sets the values given.
        static let scheduleShoot = GatewayMethod("Studio/ScheduleShoot", .idempotentWrite, .session)
        static let calendar = GatewayMethod("Studio/GetCalendar", .read, .session)
        static let checklist = GatewayMethod("Studio/GetChecklist", .read, .session)
        /// Sets the values given.
        static let updateChecklist = GatewayMethod("Studio/UpdateChecklist", .idempotentWrite, .session)
        /// Each call stores an item: sent once.
        static let addWardrobeItem = GatewayMethod("Studio/AddWardrobeItem", .write, .session)
        static let wardrobe = GatewayMethod("Studio/ListWardrobe", .read, .session)
        /// The same item on the same person in the same episode is one outfit.
        static let logOutfit = GatewayMethod("Studio/LogOutfit", .idempotentWrite, .session)
        static let outfits = GatewayMethod("Studio/ListOutfits", .read, .session)
        /// Each call proposes another date: sent once.
        static let proposeDate = GatewayMethod("Dates/ProposeDate", .write, .session)
        /// A repeat returns the confirmed date.
        static let confirmDate = GatewayMethod("Dates/ConfirmDate", .idempotentWrite, .session)
        /// A repeat returns the completed date.
        static let completeDate = GatewayMethod("Dates/CompleteDate", .idempotentWrite, .session)
        /// A repeat returns the cancelled date.
        static let cancelDate = GatewayMethod("Dates/CancelDate", .idempotentWrite, .session)
        /// A repeat is FAILED_PRECONDITION `ALREADY_REVIEWED`: sent once.
        static let reviewDate = GatewayMethod("Dates/ReviewDate", .write, .session)
        static let dates = GatewayMethod("Dates/ListDates", .read, .session)
        /// Drafting again replaces the draft with the same template.
        static let generateScript = GatewayMethod("Content/GenerateScript", .idempotentWrite, .session)
        /// Sets the values given.
        static let updateScript = GatewayMethod("Content/UpdateScript", .idempotentWrite, .session)
        static let scripts = GatewayMethod("Content/ListScripts", .read, .session)
    }

    private var casting: CastingClient { CastingClient(client: runner.transport) }
    private var episodes: EpisodesClient { EpisodesClient(client: runner.transport) }
    private var consent: ConsentClient { ConsentClient(client: runner.transport) }
    private var ledger: LedgerClient { LedgerClient(client: runner.transport) }
    private var studio: StudioClient { StudioClient(client: runner.transport) }
    private var dates: DatesClient { DatesClient(client: runner.transport) }
    private var content: ContentClient { ContentClient(client: runner.transport) }

    /// Saves one step of the caller's application wizard (the draft is created by the first).
    @discardableResult
    public func saveApplicationStep(_ step: Production.SaveApplicationRequest.Step, deadline: Duration? = nil) async throws(GatewayError) -> Production.Application {
        let request = Production.SaveApplicationRequest(step: step)
        return try await runner.run(Methods.saveApplicationStep, deadline: deadline) { [casting] options in
            try await casting.saveApplication(request, options: options)
        }
    }

    /// Submits the caller's completed application; identity then makes a viewer an applicant (refresh the session to carry the role).
    @discardableResult
    public func submitApplication(deadline: Duration? = nil) async throws(GatewayError) -> Production.Application {
        let request = Production.SubmitApplicationRequest()
        return try await runner.run(Methods.submitApplication, deadline: deadline) { [casting] options in
            try await casting.submitApplication(request, options: options)
        }
    }

    /// The caller's own application.
    public func myApplication(deadline: Duration? = nil) async throws(GatewayError) -> Production.Application {
        let request = Production.GetMyApplicationRequest()
        return try await runner.run(Methods.myApplication, deadline: deadline) { [casting] options in
            try await casting.getMyApplication(request, options: options)
        }
    }

    /// Producers: one page of the app's submitted applications, newest first.
    public func applications(status: Production.ApplicationStatus = .unspecified, pageSize: Int32 = 0, pageToken: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Production.ListApplicationsResponse {
        let request = Production.ListApplicationsRequest(status: status, pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.applications, deadline: deadline) { [casting] options in
            try await casting.listApplications(request, options: options)
        }
    }

    /// One application: producers any of the app's, members their own.
    public func application(_ id: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.Application {
        let request = Production.GetApplicationRequest(applicationID: id)
        return try await runner.run(Methods.application, deadline: deadline) { [casting] options in
            try await casting.getApplication(request, options: options)
        }
    }

    /// Producers: the next pipeline status of an application (or passed).
    @discardableResult
    public func setApplicationStatus(_ id: String, to status: Production.ApplicationStatus, deadline: Duration? = nil) async throws(GatewayError) -> Production.Application {
        let request = Production.SetApplicationStatusRequest(applicationID: id, status: status)
        return try await runner.run(Methods.setApplicationStatus, deadline: deadline) { [casting] options in
            try await casting.setApplicationStatus(request, options: options)
        }
    }

    /// Producers: casts a selected applicant in an episode.
    @discardableResult
    public func assignToEpisode(applicationID: String, episodeID: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.Application {
        let request = Production.AssignToEpisodeRequest(applicationID: applicationID, episodeID: episodeID)
        return try await runner.run(Methods.assignToEpisode, deadline: deadline) { [casting] options in
            try await casting.assignToEpisode(request, options: options)
        }
    }

    /// Producers: a new season.
    @discardableResult
    public func createSeason(number: Int32, title: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Production.Season {
        let request = Production.CreateSeasonRequest(number: number, title: title)
        return try await runner.run(Methods.createSeason, deadline: deadline) { [episodes] options in
            try await episodes.createSeason(request, options: options)
        }
    }

    /// The app's seasons with their published episodes counted.
    public func seasons(deadline: Duration? = nil) async throws(GatewayError) -> [Production.Season] {
        let request = Production.ListSeasonsRequest()
        return try await runner.run(Methods.seasons, deadline: deadline) { [episodes] options in
            try await episodes.listSeasons(request, options: options).seasons
        }
    }

    /// Producers: a new episode of a season.
    @discardableResult
    public func createEpisode(seasonID: String, number: Int32, title: String, sponsor: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Production.Episode {
        let request = Production.CreateEpisodeRequest(seasonID: seasonID, number: number, title: title, sponsor: sponsor)
        return try await runner.run(Methods.createEpisode, deadline: deadline) { [episodes] options in
            try await episodes.createEpisode(request, options: options)
        }
    }

    /// An episode: the whole of it for producers, its published view for everyone else.
    public func episode(_ id: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.EpisodeView {
        let request = Production.GetEpisodeRequest(episodeID: id)
        return try await runner.run(Methods.episode, deadline: deadline) { [episodes] options in
            try await episodes.getEpisode(request, options: options)
        }
    }

    /// A season's episodes in order (published ones only, for viewers and applicants).
    public func episodes(seasonID: String, deadline: Duration? = nil) async throws(GatewayError) -> [Production.EpisodeView] {
        let request = Production.ListEpisodesRequest(seasonID: seasonID)
        return try await runner.run(Methods.episodes, deadline: deadline) { [episodes] options in
            try await episodes.listEpisodes(request, options: options).episodes
        }
    }

    /// Producers: the deal's next pitch stage; confirming with a value posts it to the ledger once.
    @discardableResult
    public func advanceDeal(episodeID: String, to stage: Production.PitchStage, sponsor: String = "", dealValue: Production.Money? = nil, deadline: Duration? = nil) async throws(GatewayError) -> Production.Episode {
        let request = Production.AdvanceDealRequest(episodeID: episodeID, stage: stage, sponsor: sponsor, dealValue: dealValue)
        return try await runner.run(Methods.advanceDeal, deadline: deadline) { [episodes] options in
            try await episodes.advanceDeal(request, options: options)
        }
    }

    /// Producers: the next production status (SCHEDULED needs everyone's consent; PUBLISHED its BehindTheGlass detail).
    @discardableResult
    public func advanceProduction(episodeID: String, to status: Production.EpisodeStatus, behindTheGlass: Production.BehindTheGlass? = nil, deadline: Duration? = nil) async throws(GatewayError) -> Production.Episode {
        let request = Production.AdvanceProductionRequest(episodeID: episodeID, status: status, behindTheGlass: behindTheGlass)
        return try await runner.run(Methods.advanceProduction, deadline: deadline) { [episodes] options in
            try await episodes.advanceProduction(request, options: options)
        }
    }

    /// Producers: the episode's one BehindTheGlass detail.
    @discardableResult
    public func setBehindTheGlass(episodeID: String, _ detail: Production.BehindTheGlass, deadline: Duration? = nil) async throws(GatewayError) -> Production.Episode {
        let request = Production.SetBehindTheGlassRequest(episodeID: episodeID, behindTheGlass: detail)
        return try await runner.run(Methods.setBehindTheGlass, deadline: deadline) { [episodes] options in
            try await episodes.setBehindTheGlass(request, options: options)
        }
    }

    /// Producers: the fields of `episode` named in `mask` (title, sponsor, clip timestamps, counts).
    @discardableResult
    public func updateEpisode(episodeID: String, _ episode: Production.Episode, mask: [String], deadline: Duration? = nil) async throws(GatewayError) -> Production.Episode {
        let request = Production.UpdateEpisodeRequest(episodeID: episodeID, episode: episode, updateMask: mask)
        return try await runner.run(Methods.updateEpisode, deadline: deadline) { [episodes] options in
            try await episodes.updateEpisode(request, options: options)
        }
    }

    /// The consent text to show in the ritual, with its version hash.
    public func currentConsentText(deadline: Duration? = nil) async throws(GatewayError) -> Production.ConsentTextVersion {
        let request = Production.GetCurrentConsentTextRequest()
        return try await runner.run(Methods.currentConsentText, deadline: deadline) { [consent] options in
            try await consent.getCurrentConsentText(request, options: options)
        }
    }

    /// Producers: a new current consent text.
    @discardableResult
    public func publishConsentText(_ text: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.ConsentTextVersion {
        let request = Production.PublishConsentTextRequest(text: text)
        return try await runner.run(Methods.publishConsentText, deadline: deadline) { [consent] options in
            try await consent.publishConsentText(request, options: options)
        }
    }

    /// Producers, during the ritual: the participant's signed, immutable consent record.
    @discardableResult
    public func captureConsent(_ request: Production.CaptureConsentRequest, deadline: Duration? = nil) async throws(GatewayError) -> Production.ConsentRecord {
        return try await runner.run(Methods.captureConsent, deadline: deadline) { [consent] options in
            try await consent.captureConsent(request, options: options)
        }
    }

    /// Producers: a revocation record for a participant's standing consent.
    @discardableResult
    public func revokeConsent(episodeID: String, participantAccountID: String, reason: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Production.ConsentRecord {
        let request = Production.RevokeConsentRequest(episodeID: episodeID, participantAccountID: participantAccountID, reason: reason)
        return try await runner.run(Methods.revokeConsent, deadline: deadline) { [consent] options in
            try await consent.revokeConsent(request, options: options)
        }
    }

    /// Producers: an episode's consent records, oldest first.
    public func consentRecords(episodeID: String, deadline: Duration? = nil) async throws(GatewayError) -> [Production.ConsentRecord] {
        let request = Production.ListConsentRecordsRequest(episodeID: episodeID)
        return try await runner.run(Methods.consentRecords, deadline: deadline) { [consent] options in
            try await consent.listConsentRecords(request, options: options).records
        }
    }

    /// The caller's own consent records.
    public func myConsentRecords(deadline: Duration? = nil) async throws(GatewayError) -> [Production.ConsentRecord] {
        let request = Production.ListMyConsentRecordsRequest()
        return try await runner.run(Methods.myConsentRecords, deadline: deadline) { [consent] options in
            try await consent.listMyConsentRecords(request, options: options).records
        }
    }

    /// Producers: an income or expense entry.
    @discardableResult
    public func addLedgerEntry(_ request: Production.AddLedgerEntryRequest, deadline: Duration? = nil) async throws(GatewayError) -> Production.LedgerEntry {
        return try await runner.run(Methods.addLedgerEntry, deadline: deadline) { [ledger] options in
            try await ledger.addLedgerEntry(request, options: options)
        }
    }

    /// Producers: one page of entries, newest first, optionally of one season or episode.
    public func ledgerEntries(seasonID: String = "", episodeID: String = "", pageSize: Int32 = 0, pageToken: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Production.ListLedgerEntriesResponse {
        let request = Production.ListLedgerEntriesRequest(seasonID: seasonID, episodeID: episodeID, pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.ledgerEntries, deadline: deadline) { [ledger] options in
            try await ledger.listLedgerEntries(request, options: options)
        }
    }

    /// Producers: the P&L of a season (with its episodes) or of one episode, per currency.
    public func profitAndLoss(seasonID: String = "", episodeID: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Production.ProfitAndLoss {
        let request = Production.GetProfitAndLossRequest(seasonID: seasonID, episodeID: episodeID)
        return try await runner.run(Methods.profitAndLoss, deadline: deadline) { [ledger] options in
            try await ledger.getProfitAndLoss(request, options: options)
        }
    }

    /// Producers: episodes until a season breaks even, from stated assumptions.
    public func breakevenProjection(_ request: Production.GetBreakevenProjectionRequest, deadline: Duration? = nil) async throws(GatewayError) -> Production.BreakevenProjection {
        return try await runner.run(Methods.breakevenProjection, deadline: deadline) { [ledger] options in
            try await ledger.getBreakevenProjection(request, options: options)
        }
    }

    /// Producers: ROI and cost per view of each episode of a season, in one currency.
    public func sponsorReport(seasonID: String, currency: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.SponsorReport {
        let request = Production.GetSponsorReportRequest(seasonID: seasonID, currency: currency)
        return try await runner.run(Methods.sponsorReport, deadline: deadline) { [ledger] options in
            try await ledger.getSponsorReport(request, options: options)
        }
    }

    /// The app's curated restaurants, optionally of one neighborhood, nearest first from `near` (filming notes for producers only).
    public func restaurants(neighborhood: String = "", near: Production.GeoPoint? = nil, deadline: Duration? = nil) async throws(GatewayError) -> [Production.Restaurant] {
        let request = Production.ListRestaurantsRequest(neighborhood: neighborhood, near: near)
        return try await runner.run(Methods.restaurants, deadline: deadline) { [studio] options in
            try await studio.listRestaurants(request, options: options).restaurants
        }
    }

    /// Producers: sets an episode's shoot (FAILED_PRECONDITION `SCHEDULE_CONFLICT` when it would double-book).
    @discardableResult
    public func scheduleShoot(episodeID: String, restaurantID: String, startsAt: Timestamp, durationMinutes: Int32, deadline: Duration? = nil) async throws(GatewayError) -> Production.Shoot {
        let request = Production.ScheduleShootRequest(episodeID: episodeID, restaurantID: restaurantID, startsAt: startsAt, durationMinutes: durationMinutes)
        return try await runner.run(Methods.scheduleShoot, deadline: deadline) { [studio] options in
            try await studio.scheduleShoot(request, options: options)
        }
    }

    /// Producers: the shoots starting in [from, to) and their conflicts.
    public func calendar(from: Timestamp, to: Timestamp, deadline: Duration? = nil) async throws(GatewayError) -> Production.Calendar {
        let request = Production.GetCalendarRequest(from: from, to: to)
        return try await runner.run(Methods.calendar, deadline: deadline) { [studio] options in
            try await studio.getCalendar(request, options: options)
        }
    }

    /// Producers: an episode's pre-shoot checklist.
    public func checklist(episodeID: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.Checklist {
        let request = Production.GetChecklistRequest(episodeID: episodeID)
        return try await runner.run(Methods.checklist, deadline: deadline) { [studio] options in
            try await studio.getChecklist(request, options: options)
        }
    }

    /// Producers: marks the restaurant confirmed or the equipment packed.
    @discardableResult
    public func updateChecklist(episodeID: String, restaurantConfirmed: Bool? = nil, equipmentPacked: Bool? = nil, deadline: Duration? = nil) async throws(GatewayError) -> Production.Checklist {
        let request = Production.UpdateChecklistRequest(episodeID: episodeID, updateMask: (restaurantConfirmed == nil ? [] : ["restaurant_confirmed"]) + (equipmentPacked == nil ? [] : ["equipment_packed"]), restaurantConfirmed: restaurantConfirmed ?? false, equipmentPacked: equipmentPacked ?? false)
        return try await runner.run(Methods.updateChecklist, deadline: deadline) { [studio] options in
            try await studio.updateChecklist(request, options: options)
        }
    }

    /// Producers: a wardrobe item (cost zero for a sponsor's loan).
    @discardableResult
    public func addWardrobeItem(_ request: Production.AddWardrobeItemRequest, deadline: Duration? = nil) async throws(GatewayError) -> Production.WardrobeItem {
        return try await runner.run(Methods.addWardrobeItem, deadline: deadline) { [studio] options in
            try await studio.addWardrobeItem(request, options: options)
        }
    }

    /// Producers: the app's wardrobe.
    public func wardrobe(deadline: Duration? = nil) async throws(GatewayError) -> [Production.WardrobeItem] {
        let request = Production.ListWardrobeRequest()
        return try await runner.run(Methods.wardrobe, deadline: deadline) { [studio] options in
            try await studio.listWardrobe(request, options: options).items
        }
    }

    /// Producers: a wardrobe item worn by someone cast in an episode.
    @discardableResult
    public func logOutfit(episodeID: String, itemID: String, wornBy: String, notes: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Production.Outfit {
        let request = Production.LogOutfitRequest(episodeID: episodeID, itemID: itemID, wornBy: wornBy, notes: notes)
        return try await runner.run(Methods.logOutfit, deadline: deadline) { [studio] options in
            try await studio.logOutfit(request, options: options)
        }
    }

    /// Producers: an episode's outfits and what they cost, per currency.
    public func outfits(episodeID: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.ListOutfitsResponse {
        let request = Production.ListOutfitsRequest(episodeID: episodeID)
        return try await runner.run(Methods.outfits, deadline: deadline) { [studio] options in
            try await studio.listOutfits(request, options: options)
        }
    }

    /// One of a match's two people proposes a date at a restaurant.
    @discardableResult
    public func proposeDate(matchID: String, restaurantID: String, at scheduledAt: Timestamp, deadline: Duration? = nil) async throws(GatewayError) -> Production.Date {
        let request = Production.ProposeDateRequest(matchID: matchID, restaurantID: restaurantID, scheduledAt: scheduledAt)
        return try await runner.run(Methods.proposeDate, deadline: deadline) { [dates] options in
            try await dates.proposeDate(request, options: options)
        }
    }

    /// The other person confirms the date.
    @discardableResult
    public func confirmDate(_ dateID: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.Date {
        let request = Production.DateRequest(dateID: dateID)
        return try await runner.run(Methods.confirmDate, deadline: deadline) { [dates] options in
            try await dates.confirmDate(request, options: options)
        }
    }

    /// Either person marks a confirmed date as had.
    @discardableResult
    public func completeDate(_ dateID: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.Date {
        let request = Production.DateRequest(dateID: dateID)
        return try await runner.run(Methods.completeDate, deadline: deadline) { [dates] options in
            try await dates.completeDate(request, options: options)
        }
    }

    /// Either person calls a date off before it happens.
    @discardableResult
    public func cancelDate(_ dateID: String, deadline: Duration? = nil) async throws(GatewayError) -> Production.Date {
        let request = Production.DateRequest(dateID: dateID)
        return try await runner.run(Methods.cancelDate, deadline: deadline) { [dates] options in
            try await dates.cancelDate(request, options: options)
        }
    }

    /// Reviews a completed date, once.
    @discardableResult
    public func reviewDate(_ dateID: String, vibeTags: [String], wouldMeetAgain: Bool, note: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Production.Date {
        let request = Production.ReviewDateRequest(dateID: dateID, vibeTags: vibeTags, wouldMeetAgain: wouldMeetAgain, note: note)
        return try await runner.run(Methods.reviewDate, deadline: deadline) { [dates] options in
            try await dates.reviewDate(request, options: options)
        }
    }

    /// The caller's dates, newest first (producers: any match's).
    public func dates(matchID: String = "", pageSize: Int32 = 0, pageToken: String = "", deadline: Duration? = nil) async throws(GatewayError) -> Production.ListDatesResponse {
        let request = Production.ListDatesRequest(matchID: matchID, pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.dates, deadline: deadline) { [dates] options in
            try await dates.listDates(request, options: options)
        }
    }

    /// Producers: drafts an episode's script for a platform from the cast's date reviews.
    @discardableResult
    public func generateScript(episodeID: String, platform: Production.ScriptPlatform, deadline: Duration? = nil) async throws(GatewayError) -> Production.ContentScript {
        let request = Production.GenerateScriptRequest(episodeID: episodeID, platform: platform)
        return try await runner.run(Methods.generateScript, deadline: deadline) { [content] options in
            try await content.generateScript(request, options: options)
        }
    }

    /// Producers: edits the sections of a script named in `mask`.
    @discardableResult
    public func updateScript(episodeID: String, platform: Production.ScriptPlatform, _ script: Production.ContentScript, mask: [String], deadline: Duration? = nil) async throws(GatewayError) -> Production.ContentScript {
        let request = Production.UpdateScriptRequest(episodeID: episodeID, platform: platform, script: script, updateMask: mask)
        return try await runner.run(Methods.updateScript, deadline: deadline) { [content] options in
            try await content.updateScript(request, options: options)
        }
    }

    /// Producers: an episode's scripts, one per platform.
    public func scripts(episodeID: String, deadline: Duration? = nil) async throws(GatewayError) -> [Production.ContentScript] {
        let request = Production.ListScriptsRequest(episodeID: episodeID)
        return try await runner.run(Methods.scripts, deadline: deadline) { [content] options in
            try await content.listScripts(request, options: options).scripts
        }
    }
}

/// The Unseen's points as a member reads them. Awards come from the services that witness them.
public struct PointsAPI: Sendable {
    let runner: CallRunner

    enum Methods {
        static let balance = GatewayMethod("Points/GetBalance", .read, .session)
        static let entries = GatewayMethod("Points/ListEntries", .read, .session)
    }

    private var stub: PointsClient { PointsClient(client: runner.transport) }

    /// The caller's points and how many entries make them.
    public func balance(deadline: Duration? = nil) async throws(GatewayError) -> Points.Balance {
        try await runner.run(Methods.balance, deadline: deadline) { [stub] options in
            try await stub.getBalance(.init(), options: options)
        }
    }

    /// One page of the caller's entries, newest first.
    public func entries(pageSize: Int32 = 0, pageToken: String = "",
                        deadline: Duration? = nil) async throws(GatewayError) -> Points.ListEntriesResponse {
        let request = Points.ListEntriesRequest(pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.entries, deadline: deadline) { [stub] options in
            try await stub.listEntries(request, options: options)
        }
    }
}

extension RPCError {
    /// The production reason of a failed call, to `switch` on; nil for another service's.
    public var productionReason: Production.ErrorReason? { reason(as: Production.ErrorReason.self) }
}
