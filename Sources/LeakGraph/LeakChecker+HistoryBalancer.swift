#if canImport(Glibc)
    import Glibc
#endif

extension LeakChecker {
    /// Whether store sites balance retain histories by equal stacks (Mozilla's refcount balancer's rule)
    /// instead of by ownership: `LEAKGRAPH_HISTORY_BALANCER=stacks`, read once. Only for measuring the two
    /// side by side (`scripts/store-site-accuracy`, docs/how-it-works.md); the reports' sites come from
    /// ownership otherwise.
    static let pairsHistoriesByEqualStacks: Bool = {
        guard let value = getenv("LEAKGRAPH_HISTORY_BALANCER") else { return false }
        return String(cString: value) == "stacks"
    }()
}
