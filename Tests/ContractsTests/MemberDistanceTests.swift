import Contracts
import Testing

/// What members see of each other's distance (identity's member view, discovery's cards).
@Suite struct MemberDistanceTests {
    @Test(arguments: [(0.0, 0.0), (1.0, 1000.0), (1_499.9, 1000.0), (1_500.0, 2000.0), (4_381.0, 4000.0),
                      (49_600.0, 50_000.0), (-3.0, 0.0), (Double.nan, 0.0), (Double.infinity, 0.0)])
    func shown_inWholeKilometres_atLeastOne(meters: Double, shown: Double) {
        #expect(MemberDistance.shown(meters) == shown)
    }
}
