import Inbox
import LeakGraphTesting
import XCTest

/// Allocation budgets in XCTest: rendering 100 thumbnails makes 101 objects (the thumbnails and their
/// array); with LEAKGRAPH_EXAMPLE_BUDGET=over it makes 201 and the budgets fail at their lines.
final class ThumbnailBudgetTests: XCTestCase {
    func testRenderingStaysWithinItsBudget() {
        let drawing = Drawing.current
        let thumbnails = assertAllocations(atMost: 101) {
            ThumbnailRenderer.render(100, drawing: drawing)
        }
        XCTAssertEqual(thumbnails.count, 100)
    }

    func testThumbnailsPerTypeAndNothingSurvives() {
        let drawing = Drawing.current
        assertAllocations(atMost: ["Thumbnail": 100], aliveAtMost: 0) {
            _ = ThumbnailRenderer.render(100, drawing: drawing)
        }
    }
}
