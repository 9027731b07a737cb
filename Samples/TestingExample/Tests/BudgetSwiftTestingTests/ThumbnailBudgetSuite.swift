import Inbox
import LeakGraphTesting
import Testing

/// Allocation budgets in Swift Testing, with the leak check of the whole suite around each test.
/// With LEAKGRAPH_EXAMPLE_BUDGET=over every thumbnail is drawn twice. The drawing is a test argument,
/// read before the test (and its count) starts.
@Suite(.checksForLeaks)
struct ThumbnailBudgetSuite {
    @Test(.allocationBudget(atMost: 101), arguments: [Drawing.current])
    func renderingStaysWithinItsBudget(drawing: Drawing) {
        #expect(ThumbnailRenderer.render(100, drawing: drawing).count == 100)
    }

    /// Cases run in parallel, each counted alone: drawing twice, only the 60-thumbnail case goes over
    /// 100 thumbnails (120); the others (40 and 80) stay within it.
    @Test(.allocationBudget(atMost: ["Thumbnail": 100]), arguments: [20, 40, 60].map { ($0, Drawing.current) })
    func parallelCasesCountTheirOwn(count: Int, drawing: Drawing) {
        #expect(ThumbnailRenderer.render(count, drawing: drawing).count == count)
    }
}
