import LeakGraph
import LeakGraphTesting
import Synchronization
import Testing

final class RerunOwner {
    var helper: RerunHelper?
}

final class RerunHelper {
    var owner: RerunOwner?
}

/// The owner ⇄ helper cycle, closed in a function of its own (the line the report must name).
@inline(never)
func connect(_ helper: RerunHelper, to owner: RerunOwner) {
    helper.owner = owner  // the store the re-run names
}

@inline(never)
func makeRerunPair() {
    let owner = RerunOwner()
    let helper = RerunHelper()
    owner.helper = helper
    connect(helper, to: owner)
}

/// The same cycle in types of its own, for the test whose first run must find no history: recording is
/// process-wide and is not stopped, so after another test's re-run recorded `RerunOwner` and
/// `RerunHelper`, a first run leaking those would already name a store site.
final class OnceOwner {
    var helper: OnceHelper?
}

final class OnceHelper {
    var owner: OnceOwner?
}

@inline(never)
func makeOncePair() {
    let owner = OnceOwner()
    let helper = OnceHelper()
    owner.helper = helper
    helper.owner = owner
}

/// `.rerunningWithHistory`: a leaking body is run a second time recording its cycle's types, and the
/// failure names where the suspect reference was stored.
@Suite("assertNoLeaks(.rerunningWithHistory)")
struct HistoryRerunTests {
    @Test("the failure of a leaking body names the suspect's store line")
    func namesTheStoreLine() {
        let runs = Mutex(0)
        let messages = Mutex<[String]>([])
        withKnownIssue {
            assertNoLeaks(.rerunningWithHistory) {
                runs.withLock { $0 += 1 }
                makeRerunPair()
            }
        } matching: { issue in
            messages.withLock { $0.append(issue.comments.map(\.rawValue).joined()) }
            return true
        }
        #expect(runs.withLock { $0 } == 2, "the body runs again once it leaked")
        let message = messages.withLock { $0.joined() }
        #expect(message.contains("Suspect: RerunHelper.owner"), "\(message)")
        #expect(message.contains("Stored at HistoryRerunTests.swift:17 in connect(_:to:)"), "\(message)")
    }

    @Test("a body that leaks only the first time keeps its first report and says why it names no store")
    func bodyThatDoesNotLeakAgain() {
        let runs = Mutex(0)
        let messages = Mutex<[String]>([])
        withKnownIssue {
            assertNoLeaks(.rerunningWithHistory) {
                let run = runs.withLock { count in
                    count += 1
                    return count
                }
                if run == 1 { makeOncePair() }
            }
        } matching: { issue in
            messages.withLock { $0.append(issue.comments.map(\.rawValue).joined()) }
            return true
        }
        #expect(runs.withLock { $0 } == 2)
        let message = messages.withLock { $0.joined() }
        #expect(message.contains("Suspect: OnceHelper.owner"), "\(message)")
        #expect(message.contains("did not leak the same way"), "\(message)")
        #expect(!message.contains("Stored at"), "\(message)")
    }

    @Test("a body that does not leak runs once")
    func cleanBodyRunsOnce() {
        let runs = Mutex(0)
        assertNoLeaks(.rerunningWithHistory) {
            runs.withLock { $0 += 1 }
            makeFamily(leak: false)
        }
        #expect(runs.withLock { $0 } == 1)
    }
}
