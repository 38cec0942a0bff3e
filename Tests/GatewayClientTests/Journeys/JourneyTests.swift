import Foundation
import GatewayClient
import Journeys
import TestSupport
import Testing

/// Each product's journey end to end, as its users walk it: only `GatewayClient`, one address
/// (the nginx edge), and behind it every process real: two instances of each of identity,
/// discovery, messaging, production and media on the local Postgres, pushes reaching a fake
/// APNs. The journeys themselves (Tests/Journeys) check what each user sees at every step,
/// one refusal each included; journeys-bench runs the same ones under load. Every service
/// exports its spans to a stand-in collector (OTLP/gRPC, every trace sampled).
@Suite(.journeyStack, .serialized, .timeLimit(.minutes(3)))
struct JourneyTests {
    /// ÉLITE, its calls in one trace of the app's: the collector receives that trace whole, from
    /// the edge's calls through identity, media, discovery and messaging into the match event's
    /// consumers and the push (`JourneyTrace`).
    @Test func elite_referralSignUp_photos_rankedFeed_quota_match_icebreakers_receipts_report_moderation_oneTrace() async throws {
        let trace = JourneyTrace()
        try await GatewayClient.withTraceParent(trace.parent.header) {
            try await EliteJourney(context: JourneyStackTrait.context()).run()
        }
        try trace.check(try await trace.collect(from: try JourneyStackTrait.requireCollector()))
    }

    @Test func firstDate_viewerApplies_hostSelects_consentGate_publishes_viewerSeesTheMembrane_andThePnL() async throws {
        try await FirstDateJourney(context: JourneyStackTrait.context()).run()
    }

    @Test func swivo_threeAnonymousDevices_fullSessionGuard_raceToTheMatch_pushed() async throws {
        try await SwivoJourney(context: JourneyStackTrait.context()).run()
    }

    @Test func unseen_twoInitiates_threshold_convergence_arrival_resonance_points() async throws {
        try await UnseenJourney(context: JourneyStackTrait.context()).run()
    }

    @Test func momento_qrJoin_uploadsToTheLimit_revealAtReleaseTime_galleryWithThumbnails_pushed() async throws {
        try await MomentoJourney(context: JourneyStackTrait.context()).run()
    }
}

/// Starts one `JourneyStack` (two instances of each service, the edge, a fake APNs) for the
/// whole suite it is attached to, with every service exporting every trace to an `OTLPCollector`,
/// and stops both afterwards. It holds the push lock (its messaging sends the shared database's
/// push queue) and the local media backend's.
struct JourneyStackTrait: SuiteTrait, TestScoping {
    @TaskLocal static var stack: JourneyStack?
    @TaskLocal static var collector: OTLPCollector?
    /// Instances of each service behind the edge.
    var instances = 2

    /// The running suite's context; fails clearly when the suite lacks the trait.
    static func context() throws -> JourneyContext {
        guard let stack else { throw SubprocessError(message: "this suite needs the .journeyStack trait") }
        return JourneyContext(stack: stack)
    }

    /// The running suite's collector.
    static func requireCollector() throws -> OTLPCollector {
        guard let collector else { throw SubprocessError(message: "this suite needs the .journeyStack trait") }
        return collector
    }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let collector = try await OTLPCollector.start()
        defer { collector.stop() }
        let tracing = ["RV_OTLP_ENDPOINT": "127.0.0.1:\(collector.port)", "RV_TRACE_SAMPLE_RATIO": "1"]
        await MediaBackendLock.shared.acquire("local")
        do {
            try await PushDeploymentLock.withLock {
                let stack = try await JourneyStack.start(instances: instances, environment: tracing,
                                                         messagingEnvironment: JourneyCatalog.messagingEnvironment)
                do {
                    try await ProductionStack.clearOldTestRuns()  // season numbers are few
                    try await Self.$stack.withValue(stack) {
                        try await Self.$collector.withValue(collector) { try await function() }
                    }
                } catch {
                    print(stack.logs)
                    await stack.stop()
                    throw error
                }
                await stack.stop()
            }
        } catch {
            await MediaBackendLock.shared.release()
            throw error
        }
        await MediaBackendLock.shared.release()
    }
}

extension Trait where Self == JourneyStackTrait {
    /// Runs the suite against a full stack behind the edge with two instances per service.
    static var journeyStack: Self { JourneyStackTrait() }

    /// Runs the suite against a full stack behind the edge with `instances` of each service.
    static func journeyStack(instances: Int) -> Self { JourneyStackTrait(instances: instances) }
}
