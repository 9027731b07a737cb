#if canImport(Glibc)
import Glibc
#endif

/// A rendered thumbnail: one Swift object per message shown.
public final class Thumbnail {
    public let index: Int

    public init(index: Int) {
        self.index = index
    }
}

/// How the renderer draws: once per thumbnail, or twice with the regression an allocation budget
/// catches (each thumbnail drawn twice, the first copy thrown away).
public enum Drawing: Sendable {
    case once
    case twice

    /// `.twice` when `LEAKGRAPH_EXAMPLE_BUDGET=over`, else `.once`: one build checks both. Read it
    /// outside the code a budget counts (a test's argument): making the C string for `getenv` allocates.
    public static var current: Drawing {
        getenv("LEAKGRAPH_EXAMPLE_BUDGET").map { String(cString: $0) } == "over" ? .twice : .once
    }
}

/// Renders the inbox's thumbnails, with a known allocation count for the budget tests: `count`
/// thumbnails in one array (`count + 1` objects), or `2 × count + 1` drawing twice.
public enum ThumbnailRenderer {
    public static func render(_ count: Int, drawing: Drawing = .once) -> [Thumbnail] {
        var thumbnails: [Thumbnail] = []
        thumbnails.reserveCapacity(count)
        for index in 0..<count {
            if drawing == .twice {
                _ = draft(index)
            }
            thumbnails.append(Thumbnail(index: index))
        }
        return thumbnails
    }

    /// The thumbnail drawn and thrown away by the regression.
    @inline(never)
    static func draft(_ index: Int) -> Thumbnail {
        Thumbnail(index: index)
    }
}
