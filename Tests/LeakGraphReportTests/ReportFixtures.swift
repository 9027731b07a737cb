import LeakGraphTestSupport
import LeakGraphModel
import LeakGraphReport

/// Hand-built report values with fixed ids and addresses.
enum ReportFixtures {
    static let ringSite = [
        LeakReport.Frame(function: "LinkedRing.makeRing(count: Swift.Int) -> LinkedRing.DummyObject", file: "/src/LinkedRing/main.swift", line: 12),
        LeakReport.Frame(function: "main", file: "/src/LinkedRing/main.swift", line: 30),
    ]
    static let payloadSite = [
        LeakReport.Frame(function: "swift_allocObject", file: nil, line: nil),
        LeakReport.Frame(function: "LinkedRing.Payload.init()", file: "/src/LinkedRing/Payload.swift", line: 4),
    ]
    static let unknownSite = [LeakReport.Frame(function: "0x7f3a00412345", file: nil, line: nil)]

    /// Three root cycles:
    /// - #1: a ring of ten `LinkedRing.DummyObject` (ids 0–9) holding three `LinkedRing.Payload` in a
    ///   chain (10–12) and a `Swift._ContiguousArrayStorage<LinkedRing.Payload>` (13);
    /// - #2: a `Chat.Group` (14) with two `Chat.Member`s (15, 16) pointing back at it, holding a
    ///   `Chat.Node` (17) and a `Graph.Node` (18) — ambiguous short names;
    /// - #3: a `Chat.Session` (19) and its `onMessage` closure context (20) capturing it.
    static var leakingReport: LeakReport {
        var leaks: [LeakReport.Leak] = []
        var references: [LeakReport.LeakReference] = []
        func leak(_ type: String, _ kind: ObjectKind = .class, size: Int = 32, retainCount: Int = 1, cycle: Int, backtrace: [LeakReport.Frame] = []) {
            let id = leaks.count
            leaks.append(
                LeakReport.Leak(
                    id: id, address: LeakReport.hexAddress(0x5555_aa00_1000 + 0x40 * UInt64(id)), type: type,
                    kind: kind.rawValue, size: size, retainCount: retainCount, cycle: cycle, backtrace: backtrace
                )
            )
        }
        func ref(_ from: Int, _ to: Int, _ label: String, _ ownership: Ownership = .strong) {
            references.append(LeakReport.LeakReference(from: from, to: to, path: path(label), ownership: ownership))
        }
        for _ in 0 ..< 10 { leak("LinkedRing.DummyObject", cycle: 0, backtrace: ringSite) }
        for _ in 0 ..< 3 { leak("LinkedRing.Payload", size: 48, cycle: 0, backtrace: payloadSite) }
        leak("Swift._ContiguousArrayStorage<LinkedRing.Payload>", .arrayStorage, size: 56, cycle: 0)
        for index in 0 ..< 10 { ref(index, (index + 1) % 10, "next") }
        ref(3, 10, "payload")
        ref(10, 11, "next")
        ref(11, 12, "next")
        ref(12, 3, "owner", .weak)
        ref(9, 13, "history")

        leak("Chat.Group", size: 64, retainCount: 2, cycle: 1, backtrace: unknownSite)
        leak("Chat.Member", cycle: 1)
        leak("Chat.Member", cycle: 1)
        leak("Chat.Node", size: 24, cycle: 1)
        leak("Graph.Node", size: 24, cycle: 1)
        ref(14, 15, "members[0]")
        ref(14, 16, "members[1]")
        ref(15, 14, "group")
        ref(16, 14, "group")
        ref(15, 17, "node")
        ref(16, 18, "graphNode")

        leak("Chat.Session", cycle: 2)
        leak("closure context", .closureContext, size: 40, cycle: 2)
        ref(19, 20, "onMessage (closure)")
        ref(20, 19, "self")

        return LeakReport(
            program: .init(path: "/work/build/LinkedRing", arguments: ["--leak", "two words"], exitStatus: 0),
            summary: .init(trackedObjects: 1234, liveObjects: 1200, leakedObjects: leaks.count, leakedBytes: leaks.reduce(0) { $0 + $1.size }, rootCycles: 3),
            leaks: leaks, references: references,
            cycles: [
                .init(id: 0, members: Array(0 ..< 10), holds: [10, 11, 12, 13]),
                .init(id: 1, members: [14, 15, 16], holds: [17, 18]),
                .init(id: 2, members: [19, 20], holds: []),
            ],
            diagnostics: [WalkDiagnostic(typeName: "Foundation.NSCache", reason: "layout not read yet", objectCount: 2)]
        )
    }

    /// A report with no leaks.
    static var cleanReport: LeakReport {
        LeakReport(
            program: .init(path: "/work/build/LinkedRing", arguments: ["--fixed"], exitStatus: 0),
            summary: .init(trackedObjects: 1234, liveObjects: 1200, leakedObjects: 0, leakedBytes: 0, rootCycles: 0),
            leaks: [], references: [], cycles: []
        )
    }
}
