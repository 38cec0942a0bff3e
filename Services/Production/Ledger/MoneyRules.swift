import Contracts

/// Money as production carries it: a positive integer amount of minor units and an ISO 4217 code.
enum MoneyRules {
    /// Categories an entry may have; one list for both directions (a comp meal is income in kind,
    /// "other" goes either way).
    static let categories: Set<String> = ["sponsorship", "comp_meal", "merchandise", "licensing", "venue", "talent",
                                          "wardrobe", "equipment", "crew", "travel", "marketing", "other"]

    static func validate(_ money: Production.Money) throws(ProductionError) {
        guard isCurrency(money.currency) else { throw .invalidMoney("currency must be an ISO 4217 code such as USD") }
        guard money.amountMinor > 0 else { throw .invalidMoney("amount_minor must be positive; the entry's type gives the direction") }
        guard money.amountMinor <= maximumMinor else { throw .invalidMoney("amount_minor is implausibly large") }
    }

    /// The largest amount one entry or one assumption may carry (10 billion in a currency of two
    /// decimals): sums and projections of such amounts stay far inside Int64.
    static let maximumMinor: Int64 = 1_000_000_000_000

    static func isCurrency(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { (65...90).contains($0) }
    }
}
