import LeakGraphTestSupport
import LeakGraphModel
import LeakGraphReport

/// Hand-built report values with fixed ids, addresses and backtraces, for the graph renderers.
enum GraphFixtures {
    static let ringSite = [
        LeakReport.Frame(function: "LinkedRing.DummyObject.__allocating_init(name: Swift.String) -> LinkedRing.DummyObject", file: "/src/LinkedRing/main.swift", line: 20),
        LeakReport.Frame(function: "LinkedRing.makeRing(count: Swift.Int, fixed: Swift.Bool) -> ()", file: "/src/LinkedRing/main.swift", line: 36),
        LeakReport.Frame(function: "main", file: "/src/LinkedRing/main.swift", line: 54),
    ]
    static let payloadSite = [
        LeakReport.Frame(function: "swift_allocObject", file: nil, line: nil),
        LeakReport.Frame(function: "LinkedRing.Payload.init()", file: "/src/LinkedRing/Payload.swift", line: 4),
    ]
    static let unknownSite = [LeakReport.Frame(function: "0x7f3a00412345", file: nil, line: nil)]

    /// Builds leaks and references with consecutive ids and fixed addresses.
    struct Builder {
        var leaks: [LeakReport.Leak] = []
        var references: [LeakReport.LeakReference] = []

        @discardableResult
        mutating func leak(
            _ type: String, _ kind: ObjectKind = .class, size: Int = 32, retainCount: Int = 1, cycle: Int?,
            backtrace: [LeakReport.Frame] = []
        ) -> Int {
            let id = leaks.count
            leaks.append(
                LeakReport.Leak(
                    id: id, address: LeakReport.hexAddress(0x5555_aa00_1000 + 0x40 * UInt64(id)), type: type,
                    kind: kind.rawValue, size: size, retainCount: retainCount, cycle: cycle, backtrace: backtrace
                )
            )
            return id
        }

        mutating func ref(_ from: Int, _ to: Int, _ label: String, _ ownership: Ownership = .strong) {
            references.append(LeakReport.LeakReference(from: from, to: to, path: path(label), ownership: ownership))
        }

        func report(cycles: [LeakReport.Cycle], program: String = "/work/build/LinkedRing") -> LeakReport {
            var report = LeakReport(
                program: .init(path: program, arguments: ["--leak"], exitStatus: 0),
                summary: .init(
                    trackedObjects: 1234, liveObjects: 1200, leakedObjects: leaks.count,
                    leakedBytes: leaks.reduce(0) { $0 + $1.size }, rootCycles: cycles.count
                ),
                leaks: leaks, references: references, cycles: cycles
            )
            report.resolveSuspectReferences()
            return report
        }
    }

    /// The LinkedRing sample: ten `LinkedRing.DummyObject` (ids 0–9) in a `next` ring, the last `next`
    /// the suspect; object 3 holds a chain of three `LinkedRing.Payload` (10–12) whose last has a weak
    /// `owner` back to 3; object 9 holds a `Swift._ContiguousArrayStorage<LinkedRing.Payload>` (13).
    static var ringReport: LeakReport {
        var builder = Builder()
        for _ in 0 ..< 10 { builder.leak("LinkedRing.DummyObject", cycle: 0, backtrace: ringSite) }
        for _ in 0 ..< 3 { builder.leak("LinkedRing.Payload", size: 48, cycle: 0, backtrace: payloadSite) }
        builder.leak("Swift._ContiguousArrayStorage<LinkedRing.Payload>", .arrayStorage, size: 56, cycle: 0)
        for index in 0 ..< 10 { builder.ref(index, (index + 1) % 10, "next") }
        builder.ref(3, 10, "payload")
        builder.ref(10, 11, "next")
        builder.ref(11, 12, "next")
        builder.ref(12, 3, "owner", .weak)
        builder.ref(9, 13, "history")
        let suspect = LeakReport.Suspect(
            from: 9, to: 0, label: "next", reason: "it closes the ring back to the object that started it",
            hint: "make the closing link weak"
        )
        return builder.report(cycles: [
            .init(id: 0, members: Array(0 ..< 10), holds: [10, 11, 12, 13], fingerprint: "a1b2c3d4e5f60718", suspect: suspect)
        ])
    }

    /// Three root cycles and one leaked object in none of them, with names that need escaping:
    /// - #1: a `Chat.Group` (0) with two `Chat.Member`s (1, 2) pointing back at it (`group`), holding a
    ///   `Chat.Node` (3) and a `Graph.Node` (4); the suspect is member 1's `group`;
    /// - #2: a `Chat.Session` (5) and its `onMessage` closure context (6) capturing it, with an unowned
    ///   `delegate` back; no suspect, no fingerprint;
    /// - #3: a `Weird<"quoted"> & \Back` (7) referencing itself;
    /// - an `App.Orphan` (8) in no cycle.
    static var threeCycleReport: LeakReport {
        var builder = Builder()
        builder.leak("Chat.Group", size: 64, retainCount: 2, cycle: 0, backtrace: unknownSite)
        builder.leak("Chat.Member", cycle: 0)
        builder.leak("Chat.Member", cycle: 0)
        builder.leak("Chat.Node", size: 24, cycle: 0)
        builder.leak("Graph.Node", size: 24, cycle: 0)
        builder.ref(0, 1, "members[0]")
        builder.ref(0, 2, "members[1]")
        builder.ref(1, 0, "group")
        builder.ref(2, 0, "group")
        builder.ref(1, 3, "node")
        builder.ref(2, 4, "graphNode")
        builder.leak("Chat.Session", cycle: 1)
        builder.leak("closure context", .closureContext, size: 40, cycle: 1)
        builder.ref(5, 6, "onMessage (closure)")
        builder.ref(6, 5, "self")
        builder.ref(6, 5, "delegate", .unowned)
        builder.leak("App.Weird<\"quoted\"> & \\Back", cycle: 2)
        builder.ref(7, 7, "me")
        builder.leak("App.Orphan", size: 16, cycle: nil)
        let suspect = LeakReport.Suspect(
            from: 1, to: 0, label: "group", reason: "a child refers back to its parent",
            hint: "make it weak var group"
        )
        return builder.report(cycles: [
            .init(id: 0, members: [0, 1, 2], holds: [3, 4], fingerprint: "0f1e2d3c4b5a6978", suspect: suspect),
            .init(id: 1, members: [5, 6], holds: []),
            .init(id: 2, members: [7], holds: [], fingerprint: "<b>&amp;</b>"),
        ])
    }

    /// A ring of `count` `Ring.Link`s (16 bytes each) holding `payloads` `Ring.Payload`s (one per link from
    /// the start), the closing `next` the suspect.
    static func largeRing(count: Int, payloads: Int = 0) -> LeakReport {
        var builder = Builder()
        let site = [LeakReport.Frame(function: "Ring.build(count: Swift.Int) -> ()", file: "/src/Ring/main.swift", line: 9)]
        builder.leaks.reserveCapacity(count + payloads)
        for _ in 0 ..< count { builder.leak("Ring.Link", size: 16, cycle: 0, backtrace: site) }
        for _ in 0 ..< payloads { builder.leak("Ring.Payload", size: 48, cycle: 0, backtrace: site) }
        for index in 0 ..< count { builder.ref(index, (index + 1) % count, "next") }
        for index in 0 ..< payloads { builder.ref(index % count, count + index, "payload") }
        let suspect = LeakReport.Suspect(
            from: count - 1, to: 0, label: "next", reason: "it closes the ring", hint: "make the closing link weak"
        )
        return builder.report(
            cycles: [.init(id: 0, members: Array(0 ..< count), holds: Array(count ..< count + payloads), suspect: suspect)],
            program: "/work/build/Ring"
        )
    }
}

extension GraphFixtures {
    /// A report without leaks.
    static var cleanReport: LeakReport {
        Builder().report(cycles: [])
    }

    /// One root cycle: a ring of `ringSize` `Zoo.Keeper`s holding one object of each of `heldTypes`
    /// distinct types `Zoo.Animal0`, `Zoo.Animal1`, … (all referenced from the first keeper as `animals[i]`).
    static func manyTypes(ringSize: Int, heldTypes: Int) -> LeakReport {
        var builder = Builder()
        for _ in 0 ..< ringSize { builder.leak("Zoo.Keeper", cycle: 0) }
        for type in 0 ..< heldTypes { builder.leak("Zoo.Animal\(type)", size: 16 + type, cycle: 0) }
        for index in 0 ..< ringSize { builder.ref(index, (index + 1) % ringSize, "next") }
        for type in 0 ..< heldTypes { builder.ref(0, ringSize + type, "animals[\(type)]") }
        return builder.report(cycles: [
            .init(id: 0, members: Array(0 ..< ringSize), holds: Array(ringSize ..< ringSize + heldTypes))
        ])
    }
}

extension GraphFixtures {
    /// The PhotoTagger sample's shape, `count` times: a `Tagger.TaggingJob` holding a
    /// `Tagger.ClassificationStage` (its first field) and five other objects, the stage's `completion`
    /// closure holding the job back (the suspect). Each job is a root cycle of two; its other fields are held.
    /// The job's ids are `7 * n`, the stage's `7 * n + 1`.
    static func pipelineReport(count: Int) -> LeakReport {
        var builder = Builder()
        var cycles: [LeakReport.Cycle] = []
        for number in 0 ..< count {
            let job = builder.leak("Tagger.TaggingJob", size: 56, cycle: number)
            let stage = builder.leak("Tagger.ClassificationStage", cycle: number)
            builder.ref(job, stage, "classifier")
            let held = ["Tagger.Photo", "Tagger.DecodedImage", "Tagger.FaceDetectionStage",
                        "Swift._ContiguousArrayStorage<Swift.String>", "Tagger.Thumbnail"].map { type in
                builder.leak(type, size: 48, cycle: number)
            }
            for (field, object) in zip(["photo", "image", "faceDetector", "tags", "thumbnail"], held) {
                builder.ref(job, object, field)
            }
            builder.ref(stage, job, "completion (closure)")
            let suspect = LeakReport.Suspect(
                from: stage, to: job, label: "completion (closure)",
                reason: "the closure stored in ‘completion’ captures the object that holds it",
                hint: "capture self weakly"
            )
            cycles.append(.init(id: number, members: [job, stage], holds: held, suspect: suspect))
        }
        return builder.report(cycles: cycles, program: "/work/build/PhotoTagger")
    }
}
