/// LeakGraph's version, which reports and snapshots name.
public enum LeakGraphVersion {
    /// LeakGraph's version (semantic versioning).
    public static let number = "0.9.0"
}
