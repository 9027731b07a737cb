import LeakGraphReport
import Testing

/// The shape of one root cycle: the multiset of its members' and held objects' type keys.
///
/// A type key is the runtime type name for class instances (`Fixture.Node<Swift.Int>`) and the kind in
/// parentheses for other heap objects (`(arrayStorage)`, `(closureContext)`), whose type names are the
/// walker's own.
struct CycleShape: Hashable, Sendable, CustomStringConvertible {
    var members: [String: Int]
    var holds: [String: Int]

    init(members: [String], holds: [String] = []) {
        self.members = Dictionary(members.map { ($0, 1) }, uniquingKeysWith: +)
        self.holds = Dictionary(holds.map { ($0, 1) }, uniquingKeysWith: +)
    }

    init(counting members: [String: Int], holds: [String: Int] = [:]) {
        self.members = members
        self.holds = holds
    }

    var objectCount: Int { members.values.reduce(0, +) + holds.values.reduce(0, +) }

    var description: String {
        func list(_ counts: [String: Int]) -> String {
            counts.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        }
        return "members [\(list(members))] holds [\(list(holds))]"
    }
}

/// The exact leak report a leaking fixture must produce.
struct LeakExpectation: Sendable {
    /// Root cycle shapes and how many root cycles have each shape.
    var cycles: [CycleShape: Int]

    /// One cycle of each listed shape.
    init(_ shapes: [CycleShape]) {
        cycles = Dictionary(shapes.map { ($0, 1) }, uniquingKeysWith: +)
    }

    /// `count` root cycles of one shape.
    init(_ shape: CycleShape, times count: Int) {
        cycles = [shape: count]
    }

    var leakedObjects: Int { cycles.reduce(0) { $0 + $1.key.objectCount * $1.value } }
    var rootCycles: Int { cycles.values.reduce(0, +) }
}

/// The key a leak is compared by (see ``CycleShape``).
func typeKey(_ leak: LeakReport.Leak) -> String {
    leak.kind == "class" ? leak.type : "(\(leak.kind))"
}

/// The root cycle shapes of a report, counted.
func cycleShapes(of report: LeakReport) -> [CycleShape: Int] {
    let leaksByID = Dictionary(report.leaks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var shapes: [CycleShape: Int] = [:]
    for cycle in report.cycles {
        let shape = CycleShape(
            members: cycle.members.map { leaksByID[$0].map(typeKey) ?? "(missing leak \($0))" },
            holds: cycle.holds.map { leaksByID[$0].map(typeKey) ?? "(missing leak \($0))" }
        )
        shapes[shape, default: 0] += 1
    }
    return shapes
}

/// Checks what every report must satisfy, whatever the fixture: totals agree with the lists, every leak
/// sits in exactly one root cycle (as member or held) and says so in `cycle`, references join leaks.
func expectConsistent(_ report: LeakReport, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(report.schemaVersion == 2, sourceLocation: sourceLocation)
    #expect(report.summary.leakedObjects == report.leaks.count, sourceLocation: sourceLocation)
    #expect(report.summary.rootCycles == report.cycles.count, sourceLocation: sourceLocation)
    #expect(report.summary.leakedBytes == report.leaks.reduce(0) { $0 + $1.size }, sourceLocation: sourceLocation)
    #expect(report.summary.liveObjects >= report.summary.leakedObjects, sourceLocation: sourceLocation)
    // Fingerprints, now computed from typed paths, equal what the label-based scheme gave before.
    for cycle in report.cycles {
        #expect(cycle.fingerprint == LegacyFingerprint.of(cycle, in: report), "cycle \(cycle.id)", sourceLocation: sourceLocation)
        if let reference = cycle.suspect?.reference {
            #expect(report.references.indices.contains(reference), sourceLocation: sourceLocation)
            #expect(report.references[reference].label == cycle.suspect?.label, sourceLocation: sourceLocation)
        }
    }
    #expect(report.summary.trackedObjects >= report.summary.liveObjects, sourceLocation: sourceLocation)

    var cycleOfLeak: [Int: Int] = [:]
    var placedTwice: [Int] = []
    for cycle in report.cycles {
        for id in cycle.members + cycle.holds {
            if cycleOfLeak.updateValue(cycle.id, forKey: id) != nil {
                placedTwice.append(id)
            }
        }
    }
    #expect(placedTwice.isEmpty, "leaks listed in more than one cycle: \(placedTwice.prefix(10))", sourceLocation: sourceLocation)
    let ids = Set(report.leaks.map(\.id))
    #expect(ids.count == report.leaks.count, "leak ids are not unique", sourceLocation: sourceLocation)
    var wrongCycle: [Int] = []
    for leak in report.leaks where leak.cycle != cycleOfLeak[leak.id] || leak.cycle == nil {
        wrongCycle.append(leak.id)
    }
    #expect(
        wrongCycle.isEmpty, "leaks whose `cycle` is not the root cycle listing them: \(wrongCycle.prefix(10))",
        sourceLocation: sourceLocation
    )
    #expect(Set(cycleOfLeak.keys) == ids, "cycle lists and leaks differ", sourceLocation: sourceLocation)
    let dangling = report.references.filter { !ids.contains($0.from) || !ids.contains($0.to) }
    #expect(dangling.isEmpty, "references to unknown leaks: \(dangling.prefix(5))", sourceLocation: sourceLocation)
    let badLeaks = report.leaks.filter { !$0.address.hasPrefix("0x") || $0.size <= 0 || $0.retainCount <= 0 }
    #expect(badLeaks.isEmpty, "leaks with a bad address, size or retain count: \(badLeaks.prefix(3))", sourceLocation: sourceLocation)
}
