import LeakGraphRender
import LeakGraphTestSupport
import Foundation
import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphReport
import Testing

/// Six root cycles, one per suspect rule and ring form (see each comment).
private func shapesReport() -> LeakReport {
    var g = LeakedGraph()
    // #1 FindMyBike: MainViewController.registry ⇄ BikeRegistry.delegate; the registry holds its bikes.
    let controller = g.object("FindMyBike.MainViewController", size: 64)
    let registry = g.object("FindMyBike.BikeRegistry", size: 48)
    let bikes = g.object("Swift._ContiguousArrayStorage<FindMyBike.Bike>", .arrayStorage, size: 48)
    let bike = g.object("FindMyBike.Bike")
    g.ref(controller, registry, "registry")
    g.ref(registry, controller, "delegate")
    g.ref(registry, bikes, "bikes")
    g.ref(bikes, bike, "[0]")
    // #2 NeighBird: Group.members (array) ⇄ Member.group: a reference back to the container.
    let group = g.object("NeighBird.Group")
    let members = g.object("Swift._ContiguousArrayStorage<NeighBird.Member>", .arrayStorage, size: 48)
    let alice = g.object("NeighBird.Member")
    let bob = g.object("NeighBird.Member")
    g.ref(group, members, "members")
    g.ref(members, alice, "[0]")
    g.ref(members, bob, "[1]")
    g.ref(alice, group, "group")
    g.ref(bob, group, "group")
    g.ref(alice, group, "lastGroup", .weak)
    // #3 NeighBird: a message observer closure capturing only the controller (its context is the object).
    let chat = g.object("NeighBird.ChatViewController", size: 80)
    g.ref(chat, chat, "onMessage (closure)")
    // #4 A closure with two captures, capturing its holder and a theme.
    let screen = g.object("Shapes.Screen")
    let context = g.object("(closure context, 2 captures)", .closureContext, size: 40)
    let theme = g.object("Shapes.Theme", size: 24)
    g.ref(screen, context, "render (closure)")
    g.ref(context, screen, "capture[0]")
    g.ref(context, theme, "capture[1]")
    // #5 The linked ring of ten DummyObjects.
    let ring = (0 ..< 10).map { _ in g.object("LinkedRing.DummyObject") }
    for index in ring.indices { g.ref(ring[index], ring[(index + 1) % ring.count], "next") }
    // #6 An object referencing itself.
    let node = g.object("Shapes.Node", size: 24)
    g.ref(node, node, "me")
    return g.report()
}

@Suite("Leak traces: ring paths, suspects and fingerprints in the text report")
struct LeakTraceTests {
    @Test("a cycle that needs two cuts names both, each with its fix; the same declaration is named once")
    func otherCuts() throws {
        var g = LeakedGraph()
        let screen = g.object("App.Screen")
        let registry = g.object("App.Registry")
        let handler = g.object("App.Handler")
        g.ref(screen, registry, "registry")
        g.ref(registry, screen, "delegate")
        g.ref(screen, handler, "handler")
        g.ref(handler, screen, "owner")
        let report = g.report()
        let cycle = try #require(report.cycles.first)
        #expect(cycle.suspect?.label == "delegate")
        #expect(cycle.otherCuts?.map(\.label) == ["owner"])
        let text = TextReport.render(report)
        #expect(text.contains("   Suspect: Registry.delegate — "))
        #expect(text.contains("   Also cut: Handler.owner — `owner` is named like a back-reference, yet it holds its target strongly. Fix: make it `weak var owner`."))
        #expect(try LeakReport.decode(from: report.jsonData(prettyPrinted: false)) == report)

        // Two members with the same back-reference: both must be cut, one declaration to change.
        let shapes = shapesReport()
        let group = try #require(shapes.cycles.first { $0.suspect?.label == "group" })
        #expect(group.otherCuts?.map(\.label) == ["group"])
        #expect(!TextReport.render(shapes).contains("Also cut: Member.group"))
    }

    @Test("six shapes built by the report builder render as the golden file")
    func shapesGolden() throws {
        try expectMatchesGolden(TextReport.render(shapesReport()), named: "leak-traces.txt")
    }

    @Test("each cycle's trace: the ring through the suspect, the suspect, then the fingerprint, before the tree")
    func traceLines() throws {
        let report = shapesReport()
        #expect(report.cycles.count == 6)
        let lines = TextReport.render(report).split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("ROOT CYCLE #1:") })
        #expect(lines[first + 1] == "   MainViewController.registry → BikeRegistry.delegate → MainViewController")
        #expect(
            lines[first + 2]
                == "   Suspect: BikeRegistry.delegate — `delegate` is named like a back-reference, yet it holds its target strongly. "
                + "Fix: make it `weak var delegate`."
        )
        #expect(lines[first + 3] == "   Fingerprint: \(try #require(report.cycles[0].fingerprint))")
        #expect(lines[first + 4].hasPrefix("   MainViewController (0x7f0000001000, 64 bytes)"))
        #expect(lines.contains("   Group.members[0] → Member.group → Group"), "storage elements are named from the field holding the storage")
        #expect(lines.contains("   ChatViewController.onMessage (closure) → ChatViewController"))
        // Written from the first class instance, not from the suspect's target (the closure context).
        #expect(lines.contains("   Screen.render (closure) → (closure context, 2 captures).capture[0] → Screen"))
        #expect(lines.contains("   DummyObject.next → DummyObject.next → … (10 objects in the ring) → DummyObject.next → DummyObject"))
        #expect(lines.contains("   Node.me → Node"))
        // The tree marks the suspect reference once.
        #expect(lines.filter { $0.hasSuffix("  ← suspect") }.count == 6)
        #expect(lines.contains { $0.hasPrefix("     —delegate→ ↺ MainViewController") && $0.hasSuffix("← suspect") })
    }

    @Test("the suspects of the six shapes follow the rules in order")
    func suspects() {
        let report = shapesReport()
        let labels = report.cycles.map { $0.suspect?.label }
        #expect(labels == ["delegate", "group", "onMessage (closure)", "render (closure)", "next", "me"])
        let hints = report.cycles.map { $0.suspect?.hint ?? "" }
        #expect(hints[1] == "make it `weak var group`")
        #expect(hints[2].hasPrefix("capture the `ChatViewController` weakly: `{ [weak self] in … }` in a method of `ChatViewController`"))
        // Every suspect is a strong reference inside its own cycle.
        for cycle in report.cycles {
            guard let suspect = cycle.suspect else {
                Issue.record("cycle \(cycle.id) has no suspect")
                continue
            }
            #expect(cycle.members.contains(suspect.from) && cycle.members.contains(suspect.to))
            #expect(report.references.contains {
                $0.from == suspect.from && $0.to == suspect.to && $0.label == suspect.label && $0.ownership == .strong
            })
        }
    }

    @Test("a short ring is written in full, a ring past six references abbreviated")
    func abbreviation() throws {
        for count in [6, 7] {
            var g = LeakedGraph()
            for _ in 0 ..< count { g.object("Ring.Link") }
            for index in 0 ..< count { g.ref(index, (index + 1) % count, "next") }
            let lines = TextReport.render(g.report()).split(separator: "\n").map(String.init)
            let path = try #require(lines.first { $0.hasPrefix("   Link.next") })
            if count == 6 {
                #expect(path == "   " + Array(repeating: "Link.next", count: 6).joined(separator: " → ") + " → Link")
            } else {
                #expect(path == "   Link.next → Link.next → … (7 objects in the ring) → Link.next → Link")
            }
        }
    }

    @Test("a long ring written from a class instance keeps its suspect visible between the abbreviations")
    func abbreviationKeepsSuspect() throws {
        // Twelve objects; the suspect is the closure `render` into a closure context, so the line starts at
        // the first class instance and the suspect falls in the middle.
        var g = LeakedGraph()
        let ring = (0 ..< 12).map { $0 == 6 ? g.object("(closure context, 1 capture)", .closureContext) : g.object("App.Link") }
        for index in ring.indices {
            let label = index == 5 ? "render (closure)" : index == 6 ? "capture[0]" : "next"
            g.ref(ring[index], ring[(index + 1) % ring.count], label)
        }
        let report = g.report()
        #expect(report.cycles.first?.suspect?.label == "render (closure)")
        let lines = TextReport.render(report).split(separator: "\n").map(String.init)
        #expect(lines.contains("   Link.next → Link.next → … (12 objects in the ring) → Link.render (closure) → … → Link.next → Link"))
    }

    @Test("a cycle without a suspect or fingerprint (a report written before they existed) shows the tree only")
    func withoutTrace() throws {
        var report = shapesReport()
        for index in report.cycles.indices {
            report.cycles[index].suspect = nil
            report.cycles[index].fingerprint = nil
        }
        let lines = TextReport.render(report).split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("ROOT CYCLE #1:") })
        #expect(lines[first + 1].hasPrefix("   MainViewController (0x7f0000001000"))
        #expect(!lines.contains { $0.contains("Suspect:") || $0.contains("Fingerprint:") || $0.contains("← suspect") })
    }

    @Test("suspects and fingerprints survive a JSON round trip; a report without them still decodes")
    func json() throws {
        let report = shapesReport()
        let data = try report.jsonData()
        #expect(try LeakReport.decode(from: data) == report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cycles = try #require(object["cycles"] as? [[String: Any]])
        #expect(cycles[0]["fingerprint"] as? String == report.cycles[0].fingerprint)
        let suspect = try #require(cycles[0]["suspect"] as? [String: Any])
        #expect(Set(suspect.keys) == ["reference", "from", "to", "label", "reason", "hint"])

        var stripped = object
        stripped["cycles"] = cycles.map { cycle in cycle.filter { $0.key != "fingerprint" && $0.key != "suspect" } }
        let old = try LeakReport.decode(from: try JSONSerialization.data(withJSONObject: stripped))
        #expect(old.cycles.allSatisfy { $0.fingerprint == nil && $0.suspect == nil })
        #expect(old.cycles.map(\.members) == report.cycles.map(\.members))
    }
}

@Suite("Leak traces of known library leaks")
struct LibraryLeakTraceTests {
    @Test("a known library leak's ring is shown without a suspect or fix; the reader's own cycle keeps its suspect")
    func noFixForLibraryCode() throws {
        var g = LeakedGraph()
        let suite = g.object("Lib.Suite"), run = g.object("Lib.SuiteRun")
        g.ref(suite, run, "testRun")
        g.ref(run, suite, "test")
        let registry = g.object("App.Registry"), screen = g.object("App.Screen")
        g.ref(screen, registry, "registry")
        g.ref(registry, screen, "delegate")
        var report = g.report()
        let before = TextReport.render(report)
        #expect(before.components(separatedBy: "   Suspect: ").count - 1 == 2)
        let library = try #require(report.cycles.firstIndex { $0.members.contains(suite) })
        report.cycles[library].knownLibraryLeak = "known leak in a library: …"
        let text = TextReport.render(report, options: .init(expand: true))
        let blocks = text.components(separatedBy: "ROOT CYCLE #").dropFirst()
        let libraryBlock = try #require(blocks.first { $0.contains("Not your code") })
        #expect(libraryBlock.contains("Suite.testRun → SuiteRun.test → Suite"), "\(libraryBlock)")
        #expect(!libraryBlock.contains("Suspect:") && !libraryBlock.contains("Fix:"), "\(libraryBlock)")
        #expect(libraryBlock.contains("Fingerprint: "))
        let ownBlock = try #require(blocks.first { !$0.contains("Not your code") })
        #expect(ownBlock.contains("   Suspect: Registry.delegate — "), "\(ownBlock)")

        // By default the known library leak is one line after the reader's own cycles, never a section.
        let collapsed = TextReport.render(report)
        let lines = collapsed.split(separator: "\n").map(String.init)
        #expect(collapsed.components(separatedBy: "ROOT CYCLE #").count - 1 == 1, "\(collapsed)")
        let title = try #require(lines.firstIndex { $0.hasPrefix("KNOWN LIBRARY LEAKS (not your code; reported, not failing): 1 root cycle, 2 objects") })
        #expect(lines[title + 1].hasPrefix("   #\(library + 1) Suite.testRun → SuiteRun.test → Suite — known leak in a library (2 objects)"), "\(collapsed)")
        #expect(lines.firstIndex { $0.hasPrefix("ROOT CYCLE #") }! < title)
        #expect(lines[0].hasPrefix("Process \(ReportNaming.programName(report.program)): 2 leaks of your code for "), "\(lines[0])")
        #expect(lines[1].hasPrefix("Process \(ReportNaming.programName(report.program)): not your code: 1 known library leak, 2 objects, "), "\(lines[1])")
    }
}
