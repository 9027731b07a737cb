import Foundation
import LeakGraphReport
import Testing

// The preload library carries only the hook and the exit and signal plumbing; the checker library
// (Swift, Foundation, libdw) is loaded the first time a check runs (docs/performance.md, "What a
// program pays before it checks").

@Suite("The checker is loaded when a check runs", .timeLimit(.minutes(10)))
struct LazyCheckerTests {
    /// The `LeakAndEnd` fixture (leaks Owner ⇄ Partner), built once.
    private func program() async throws -> String {
        _ = try BuildProducts.preloadLibrary()
        return try await FixtureBuilds.shared.executable("LeakAndEnd", .debug).path
    }

    @Test("before its first check a program has loaded neither the checker, nor Foundation, nor libdw; the check at exit still finds the leak")
    func nothingLoadedBeforeTheCheck() async throws {
        let run = try await LeakgraphRun.run(try await program(), ["loaded", "exit", "0"], options: ["--every", "1h"])
        #expect(run.result.standardOutput.contains("loaded: none\n"), "\(run.result.summary)")
        #expect(!run.result.signaled && run.result.status == LeakgraphRun.leakStatus, "\(run.result.summary)")
        #expect(Set(run.report?.leaks.map(\.type) ?? []) == ["Fixture.Owner", "Fixture.Partner"])
    }

    @Test("the checker library needs FoundationEssentials only: not Foundation, its ICU data or libdispatch's overlay")
    func checkerLinksNoFoundation() throws {
        let checker = try BuildProducts.preloadLibrary().deletingLastPathComponent().appendingPathComponent("libLeakGraphPreloadChecker.so")
        let bytes = try Data(contentsOf: checker)
        // DT_NEEDED names are NUL-terminated strings of the dynamic string table.
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libswiftDispatch.so"] {
            #expect(bytes.range(of: Data((library + "\0").utf8)) == nil, "\(checker.path) needs \(library)")
        }
        #expect(bytes.range(of: Data("libFoundationEssentials.so\0".utf8)) != nil)
    }

    @Test("the checker library renders without Graphviz: libgvc and libcgraph are not among what it needs")
    func checkerLinksNoGraphviz() throws {
        let checker = try BuildProducts.preloadLibrary().deletingLastPathComponent().appendingPathComponent("libLeakGraphPreloadChecker.so")
        let bytes = try Data(contentsOf: checker)
        // Graphviz's sonames carry its ABI version (libgvc.so.6): look for the names before it.
        for library in ["libgvc.so", "libcgraph.so", "libcdt.so", "libpathplan.so"] {
            #expect(bytes.range(of: Data(library.utf8)) == nil, "\(checker.path) needs \(library)")
        }
        // The CLI draws graphs and does need it: the names are looked for as its dynamic section spells them.
        #expect(try Data(contentsOf: BuildProducts.leakgraph()).range(of: Data("libgvc.so".utf8)) != nil)
    }

    @Test("--verbose: the check at exit says how long each step took and its peak memory")
    func verboseSteps() async throws {
        let run = try await LeakgraphRun.run(try await program(), ["exit", "0"], options: ["--verbose"])
        #expect(!run.result.signaled && run.result.status == LeakgraphRun.leakStatus, "\(run.result.summary)")
        let line = try #require(run.toolMessages.first { $0.hasPrefix("leakgraph: check of ") }, "\(run.result.summary)")
        for step in ["load ", "snapshot ", "walk ", "orphan scan ", "leaked graph ", "analysis ", "symbolization ", "report ", "writing ", "frozen ", "peak RSS "] {
            #expect(line.contains(step), "\(line)")
        }
        let objects = Int(line.dropFirst("leakgraph: check of ".count).prefix { $0.isNumber }) ?? 0
        #expect(objects == run.report?.summary.trackedObjects, "\(line)")
    }
}
