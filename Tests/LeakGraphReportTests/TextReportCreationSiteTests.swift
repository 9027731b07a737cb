import LeakGraphRender
import LeakGraphReport
import Testing

@Suite("Text report creation site")
struct TextReportCreationSiteTests {
    static func frame(_ function: String, _ file: String? = nil, _ line: Int? = nil) -> LeakReport.Frame {
        LeakReport.Frame(function: function, file: file, line: line)
    }

    /// The object lines of the ring cycle of ``ReportFixtures/leakingReport`` after giving its first four
    /// objects these backtraces.
    static func ringLines(_ backtraces: [[LeakReport.Frame]]) throws -> [String] {
        var report = ReportFixtures.leakingReport
        for (index, backtrace) in backtraces.enumerated() {
            report.leaks[index].backtrace = backtrace
        }
        let lines = TextReport.render(report).split(separator: "\n").map(String.init)
        let title = try #require(lines.firstIndex(of: "ROOT CYCLE #1: 10 objects, 320 bytes"))
        return Array(lines[title + 1 ... title + backtraces.count])
    }

    @Test("the allocating initializer is passed over for the line that called it, with or without a line of its own")
    func allocatingInitializerSkipped() throws {
        let lines = try Self.ringLines([
            // Debug build: the initializer is a real frame, with a file but no line.
            [
                Self.frame("App.DummyObject.__allocating_init(Swift.Int) -> App.DummyObject", "/src/ring.swift"),
                Self.frame("App.makeRing() -> ()", "/src/ring.swift", 6),
            ],
            // Release build, expanded inlines: the inlined initializer may carry a line (its declaration's).
            [
                Self.frame("App.DummyObject.__allocating_init(Swift.Int) -> App.DummyObject", "/src/ring.swift", 1),
                Self.frame("App.makeRing() -> ()", "/src/ring.swift", 5),
            ],
        ])
        #expect(lines[0] == "   DummyObject (0x5555aa001000, 32 bytes)  created at ring.swift:6 in App.makeRing() -> ()")
        #expect(lines[1] == "     —next→ DummyObject (0x5555aa001040, 32 bytes)  created at ring.swift:5 in App.makeRing() -> ()")
    }

    @Test("without a frame with a file and a line: the first frame with a file, else the first frame")
    func fallbacks() throws {
        let lines = try Self.ringLines([
            [Self.frame("swift_allocObject"), Self.frame("App.makeRing() -> ()", "/src/ring.swift"), Self.frame("main")],
            [Self.frame("App.DummyObject.__allocating_init(Swift.Int) -> App.DummyObject", "/src/ring.swift", 1)],
            [Self.frame("0x7f0012"), Self.frame("0x7f0034")],
        ])
        #expect(lines[0].hasSuffix("  created at ring.swift in App.makeRing() -> ()"))
        // An allocating initializer with a line is still better than nothing.
        #expect(lines[1].hasSuffix("  created at ring.swift:1 in App.DummyObject.__allocating_init(Swift.Int) -> App.DummyObject"))
        #expect(lines[2].hasSuffix("  created in 0x7f0012"))
    }

    @Test("a thunk with a line is passed over too")
    func thunkSkipped() throws {
        let lines = try Self.ringLines([
            [
                Self.frame("reabstraction thunk helper from @escaping @callee_guaranteed () -> ()", "/src/ring.swift", 2),
                Self.frame("App.makeRing() -> ()", "/src/ring.swift", 7),
            ]
        ])
        #expect(lines[0].hasSuffix("  created at ring.swift:7 in App.makeRing() -> ()"))
    }

    @Test("frames named <stdin> or with line 0 are no place: the next real place is shown")
    func stdinAndLineZeroSkipped() throws {
        let lines = try Self.ringLines([
            [
                Self.frame("Algorithms.Chain2Sequence.init() -> Algorithms.Chain2Sequence", "<stdin>", 12),
                Self.frame("App.makeChain() -> ()", "/src/chain.swift", 4),
            ],
            [
                Self.frame("App.Pool.make() -> App.Pool", "/src/pool.swift", 0),
                Self.frame("App.run() -> ()", "/src/run.swift", 9),
            ],
            [Self.frame("merged App.helper() -> ()", "<compiler-generated>", 0), Self.frame("main")],
        ])
        #expect(lines[0].hasSuffix("  created at chain.swift:4 in App.makeChain() -> ()"))
        #expect(lines[1].hasSuffix("  created at run.swift:9 in App.run() -> ()"))
        // No real file anywhere: the first frame's function alone, never `<compiler-generated>:0`.
        #expect(lines[2].hasSuffix("  created in merged App.helper() -> ()"))
    }

    @Test("a frame with a real file but line 0 still beats frames without any file")
    func lineZeroFileFallback() throws {
        let site = ReportNaming.creationSite([
            Self.frame("swift_allocObject"), Self.frame("App.Pool.make() -> App.Pool", "/src/pool.swift", 0),
        ])
        #expect(site?.text == "pool.swift in App.Pool.make() -> App.Pool")
    }

    @Test("a captured var's box or a closure's context: made in the function whose frame has no line, not at its caller's line")
    func boxSite() {
        let frames = [Self.frame("App.makeConsole() -> ()", nil, nil), Self.frame("main", "/src/main.swift", 84)]
        for kind in ["box", "closureContext"] {
            let leak = LeakReport.Leak(id: 0, address: "0x10", type: "(box)", kind: kind, size: 32, retainCount: 1, cycle: 0, backtrace: frames)
            #expect(ReportNaming.creationSite(of: leak)?.text == "App.makeConsole() -> ()", "\(kind)")
        }
        let withFile = LeakReport.Leak(
            id: 0, address: "0x10", type: "(box)", kind: "box", size: 32, retainCount: 1, cycle: 0,
            backtrace: [Self.frame("App.makeConsole() -> ()", "/src/console.swift", 0)] + frames.dropFirst())
        #expect(ReportNaming.creationSite(of: withFile)?.text == "console.swift in App.makeConsole() -> ()")
        // A class instance keeps the rule: its allocating initializer is passed over for the caller's line.
        let object = LeakReport.Leak(id: 0, address: "0x10", type: "App.Console", kind: "class", size: 32, retainCount: 1, cycle: 0, backtrace: frames)
        #expect(ReportNaming.creationSite(of: object)?.text == "main.swift:84 in main")
    }
}
