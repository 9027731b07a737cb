/// How a periodic check confirmed the leak candidates of its first walk (`LeakMonitorCheck.confirmation`,
/// the `confirmation` of a `checks.jsonl` line).
public enum CheckConfirmation: String, Sendable, Codable {
    /// No candidate (or a skipped check): one freeze.
    case none
    /// Every candidate was a leak confirmed before, unchanged (`knownLeaksOnly`): one freeze.
    case known
    /// The first walk's leaked objects were read again alone: a second, short freeze.
    case reread
    /// A second walk of every object (with the orphan scan): a second, whole freeze.
    case walk
}
