import LeakGraphReport

/// What `leakgraph --version` prints: LeakGraph's version, the report schema it writes and the
/// Swift toolchain it supports.
enum LeakgraphVersion {
    /// LeakGraph's version (semantic versioning).
    static let number = "0.9.0"

    /// `leakgraph 0.9.0 (report schema 2; Swift 6.3 runtime on Linux)`.
    static let text =
        "leakgraph \(number) (report schema \(LeakReport.currentSchemaVersion); Swift 6.3 runtime on Linux)"
}
