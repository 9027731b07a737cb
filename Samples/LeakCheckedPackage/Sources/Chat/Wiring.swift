/// Whether the sample's types close their retain cycles (the mistake) or break them (the fix).
public enum Wiring: Sendable {
    /// The back-reference is strong: the objects leak.
    case leaking
    /// The back-reference is weak: the objects are freed.
    case fixed

    /// `.fixed` when the environment variable `LEAKCHECKED_WIRING` is `fixed`, else `.leaking`: lets one
    /// build of the tests check both forms.
    public static var fromEnvironment: Wiring {
        getenv("LEAKCHECKED_WIRING").map { String(cString: $0) } == "fixed" ? .fixed : .leaking
    }
}

#if canImport(Glibc)
import Glibc
#endif
