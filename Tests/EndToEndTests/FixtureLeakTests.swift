import LeakGraphReport
import Testing

// Every fixture under Tests/Fixtures, leaking and fixed, compiled at -Onone and -O, run end to end
// through `leakgraph run`. Class types are asserted exactly (`Fixture.Name`); other heap objects by kind,
// e.g. `(arrayStorage)`, since their type names are the walker's own. Each fixture's header comment says
// what it builds and what must be reported.

@Suite("Fixtures under leakgraph run", .timeLimit(.minutes(10)))
struct FixtureLeakTests {
    @Test("stored class properties A ⇄ B (fixed: weak)", arguments: Optimization.allCases)
    func storedProperties(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "StoredProperties", optimization,
            leaking: LeakExpectation([CycleShape(members: ["Fixture.Owner", "Fixture.Partner"])])
        )
        guard let report else { return }
        #expect(Set(report.references.map(\.label)) == ["partner", "owner"])
        #expect(ownershipCounts(report) == ["strong": 2])
        // The creation site is symbolized to the fixture's own builder in main.swift.
        for leak in report.leaks {
            let builder = leak.backtrace.first { $0.function.contains("makePair") }
            #expect(builder != nil, "no makePair frame in \(leak.backtrace)")
            if optimization == .debug, let builder {
                #expect(builder.file?.hasSuffix("main.swift") == true && builder.line != nil, "\(builder)")
            }
        }
    }

    @Test("self-reference a.me = a", arguments: Optimization.allCases)
    func selfReference(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "SelfReference", optimization, leaking: LeakExpectation([CycleShape(members: ["Fixture.Loner"])])
        )
        guard let report else { return }
        #expect(report.references.count == 1)
        #expect(report.references.allSatisfy { $0.from == $0.to && $0.label == "me" && $0.ownership == .strong })
    }

    @Test("Optional ring of 10 `var next: Link?` (fixed: closed by weak)", arguments: Optimization.allCases)
    func optionalRing(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "OptionalRing", optimization,
            leaking: LeakExpectation([CycleShape(counting: ["Fixture.Link": 10])])
        )
        guard let report else { return }
        #expect(report.references.count == 10)
        #expect(report.references.allSatisfy { $0.label == "next" && $0.ownership == .strong })
    }

    @Test("implicitly unwrapped ring `var next: Bead!`", arguments: Optimization.allCases)
    func implicitlyUnwrappedRing(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "ImplicitlyUnwrappedRing", optimization,
            leaking: LeakExpectation([CycleShape(counting: ["Fixture.Bead": 3])])
        )
        guard let report else { return }
        #expect(report.references.count == 3)
        #expect(report.references.allSatisfy { $0.label == "next" && $0.ownership == .strong })
    }

    @Test("cycle through a field two superclasses up", arguments: Optimization.allCases)
    func superclassField(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "SuperclassField", optimization,
            leaking: LeakExpectation([CycleShape(members: ["Fixture.Car", "Fixture.Garage"], holds: ["Fixture.Trailer"])])
        )
        guard let report else { return }
        #expect(Set(report.references.map(\.label)) == ["garage", "car", "trailer"])
    }

    @Test("generic class rings Node<Int> and Node<Payload>", arguments: Optimization.allCases)
    func genericRing(_ optimization: Optimization) async throws {
        try await checkFixture(
            "GenericRing", optimization,
            leaking: LeakExpectation([
                CycleShape(counting: ["Fixture.Node<Swift.Int>": 3]),
                CycleShape(counting: ["Fixture.Node<Fixture.Payload>": 3], holds: ["Fixture.Payload": 3]),
            ])
        )
    }

    @Test("struct field, nested struct and tuple element inside a class", arguments: Optimization.allCases)
    func structFields(_ optimization: Optimization) async throws {
        try await checkFixture(
            "StructFields", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Document", "Fixture.Editor"]),
                CycleShape(members: ["Fixture.Window", "Fixture.Controller"]),
                CycleShape(members: ["Fixture.Pipe", "Fixture.Sink"]),
            ])
        )
    }

    @Test("Array and ContiguousArray children ⇄ parent (fixed: weak parent)", arguments: Optimization.allCases)
    func arrayChildren(_ optimization: Optimization) async throws {
        // The array storage objects are members of the cycles: parent → storage → child → parent.
        try await checkFixture(
            "ArrayChildren", optimization,
            leaking: LeakExpectation([
                CycleShape(counting: ["Fixture.Parent": 1, "Fixture.Child": 3, "(arrayStorage)": 1]),
                CycleShape(counting: ["Fixture.Folder": 1, "Fixture.File": 2, "(arrayStorage)": 1]),
            ])
        )
    }

    @Test("closure capturing only self (fixed: [weak self]; [unowned self] is no leak)", arguments: Optimization.allCases)
    func closureSelf(_ optimization: Optimization) async throws {
        // The single-capture closure's context is the Button itself: no separate context object.
        let report = try await checkFixture(
            "ClosureSelf", optimization, leaking: LeakExpectation([CycleShape(members: ["Fixture.Button"])]),
            cleanModes: ["fixed", "unowned"]
        )
        guard let report else { return }
        #expect(report.references.count == 1)
        // The label names the closure property (`handler (closure)`).
        #expect(report.references.allSatisfy { $0.from == $0.to && $0.label.hasPrefix("handler") }, "\(report.references)")
    }

    @Test("closure with two captures { self.width + theme.scale }", arguments: Optimization.allCases)
    func closureCaptures(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "ClosureCaptures", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Screen", "(closureContext)"], holds: ["Fixture.Theme"])
            ])
        )
        guard let report else { return }
        // Screen —render→ context, context —capture→ Screen and Theme: all strong.
        #expect(ownershipCounts(report) == ["strong": 3])
        #expect(report.references.contains { $0.label.hasPrefix("render") }, "\(report.references)")
    }

    @Test("unowned, unowned(unsafe) and Unmanaged are never strong", arguments: Optimization.allCases)
    func unownedReferences(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "UnownedReferences", optimization,
            leaking: LeakExpectation([CycleShape(members: ["Fixture.Account", "Fixture.Profile"])])
        )
        guard let report else { return }
        // Among the leaked pair: profile, owner (strong); account (unowned); unsafeAccount and
        // unmanagedAccount (unmanaged: `unowned(unsafe)` and `Unmanaged` have no reference counting).
        #expect(ownershipCounts(report) == ["strong": 2, "unowned": 1, "unmanaged": 2], "\(report.references)")
        let strongLabels = Set(report.references.filter { $0.ownership == .strong }.map(\.label))
        #expect(strongLabels == ["profile", "owner"])
    }

    @Test("a leaked ring of 100,000 objects", arguments: Optimization.allCases)
    func largeRing(_ optimization: Optimization) async throws {
        try await checkFixture(
            "LargeRing", optimization,
            leaking: LeakExpectation([CycleShape(counting: ["Fixture.RingNode": 100_000])])
        )
    }

    @Test("a live chain of 1,000,000 objects held by a global is no leak", arguments: Optimization.allCases)
    func liveChain(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("LiveChain", optimization).path
        let fixed = try await LeakgraphRun.run(program, ["fixed"])
        expectNoLeaks(fixed, program: program, mode: "fixed")
        #expect((fixed.report?.summary.liveObjects ?? 0) >= 1_000_000, "the walk did not see the chain")
        let leaking = try await LeakgraphRun.run(program, ["leak"])
        let report = expectLeaks(
            leaking, LeakExpectation([CycleShape(members: ["Fixture.Stray", "Fixture.Stray"])]), program: program,
            mode: "leak"
        )
        #expect((report?.summary.liveObjects ?? 0) >= 1_000_002, "the walk did not see the chain")
    }

    @Test("leaks made on 8 threads at once, 100 pairs each", arguments: Optimization.allCases)
    func eightThreads(_ optimization: Optimization) async throws {
        try await checkFixture(
            "EightThreads", optimization,
            leaking: LeakExpectation(CycleShape(members: ["Fixture.ThreadOwner", "Fixture.ThreadPartner"]), times: 800)
        )
    }

    @Test("cycles reachable from a global, a static, a static let and a top-level let are no leaks", arguments: Optimization.allCases)
    func globalReachable(_ optimization: Optimization) async throws {
        try await checkFixture(
            "GlobalReachable", optimization,
            leaking: LeakExpectation([CycleShape(members: ["Fixture.Lost", "Fixture.Lost"])])
        )
    }

    @Test("objects held by a cycle are grouped under it", arguments: Optimization.allCases)
    func cycleHoldsOthers(_ optimization: Optimization) async throws {
        // Cache ⇄ CacheEntry is a cycle too, but not a root one: the session points into it.
        try await checkFixture(
            "CycleHoldsOthers", optimization,
            leaking: LeakExpectation([
                CycleShape(
                    counting: ["Fixture.Session": 1, "Fixture.Connection": 1],
                    holds: [
                        "Fixture.Logger": 1, "Fixture.Buffer": 1, "Fixture.Cache": 1, "Fixture.CacheEntry": 1,
                        "Fixture.Packet": 3, "(arrayStorage)": 1,
                    ]
                )
            ])
        )
    }

    @Test("several independent cycles, one root cycle each", arguments: Optimization.allCases)
    func independentCycles(_ optimization: Optimization) async throws {
        var expected = LeakExpectation(CycleShape(members: ["Fixture.Peer", "Fixture.Peer"]), times: 5)
        expected.cycles[CycleShape(members: ["Fixture.Solo"])] = 3
        expected.cycles[CycleShape(counting: ["Fixture.Knot": 4])] = 2
        try await checkFixture("IndependentCycles", optimization, leaking: expected)
    }

    @Test("without --text the summary goes to standard error; --frames reaches the preload library")
    func summaryAndFrames() async throws {
        let program = try await FixtureBuilds.shared.executable("StoredProperties", .debug).path
        let plain = try await LeakgraphRun.run(program, ["leak"], writeFiles: false)
        #expect(plain.result.status == LeakgraphRun.leakStatus, "\(plain.result.summary)")
        #expect(plain.result.standardError.contains("Owner") && plain.result.standardError.contains("Partner"))

        // `--frames 0` records no creation stacks at all; the default records the builder's frames.
        let noFrames = try await LeakgraphRun.run(program, ["leak"], options: ["--frames", "0"])
        #expect(noFrames.result.status == LeakgraphRun.leakStatus, "\(noFrames.result.summary)")
        #expect(noFrames.report?.leaks.allSatisfy { $0.backtrace.isEmpty } == true)
        let defaultFrames = try await LeakgraphRun.run(program, ["leak"])
        #expect(defaultFrames.report?.leaks.allSatisfy { !$0.backtrace.isEmpty } == true)
    }
}
