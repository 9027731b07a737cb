@testable import LeakGraphGraphviz
import Testing

/// Backtick code spans of hint texts, shown as code in HTML and in quotation marks in tooltips.
@Suite struct CodeSpansTests {
    @Test func splitsProseAndCode() {
        let runs = CodeSpans.split("make it `weak var owner` or `unowned`, not `this")
        #expect(runs.map { "\($0.isCode ? "C" : "P"):\($0.text)" } == [
            "P:make it ", "C:weak var owner", "P: or ", "C:unowned", "P:, not `this",
        ])
        #expect(CodeSpans.split("").isEmpty)
        #expect(CodeSpans.split("no code").map(\.isCode) == [false])
    }

    @Test func htmlAndPlain() {
        let hint = "capture self weakly: `{ [weak self] in … }` & <done>"
        #expect(CodeSpans.html(hint) == "capture self weakly: <code>{ [weak self] in … }</code> &amp; &lt;done&gt;")
        #expect(CodeSpans.plain(hint) == "capture self weakly: ‘{ [weak self] in … }’ & <done>")
    }
}
