import Foundation
import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphReport
import LeakGraphSnapshotFile
import Testing

// Heap snapshots (issue 25) of a real program whose dominator structure is known exactly
// (Tests/Fixtures/Snapshots), taken by `leakgraph run --snapshot`, read by `leakgraph snapshot` and
// browsed with `leakgraph serve` in headless Chromium.

/// Runs the Snapshots fixture in `mode` with `--snapshot` and returns the run and the snapshot read back.
private func snapshotRun(_ optimization: Optimization, _ mode: String) async throws -> (run: LeakgraphRun, snapshot: HeapSnapshot, path: String) {
    let program = try await FixtureBuilds.shared.executable("Snapshots", optimization).path
    let path = try Scratch.directory("snapshot").appendingPathComponent("\(mode)-\(optimization.rawValue).lgsnap").path
    let run = try await LeakgraphRun.run(program, [mode], options: ["--snapshot", path])
    let snapshot = try HeapSnapshotFile.read(from: path)
    return (run, snapshot, path)
}

/// The objects of `type` (full name), in object order.
private func objects(_ snapshot: HeapSnapshot, _ type: String) -> [Int] {
    (0 ..< snapshot.objects.count).filter { snapshot.type(of: $0).name == type }
}

/// The immediate dominator of `object`, `nil` for the super-root.
private func dominator(_ analysis: SnapshotAnalysis, _ object: Int) -> Int? {
    analysis.tree.immediateDominator(of: object).flatMap { $0 == analysis.superRoot ? nil : $0 }
}

@Suite("Heap snapshots of a real program", .timeLimit(.minutes(10)))
struct SnapshotFixtureTests {
    @Test("the dominator tree and retained sizes of known shapes, exactly; the leaked ring's references are the report's",
          arguments: Optimization.allCases)
    func knownShapes(_ optimization: Optimization) async throws {
        let (run, snapshot, _) = try await snapshotRun(optimization, "shapes")
        #expect(run.result.status == LeakgraphRun.leakStatus, "\(run.result.summary)")
        let analysis = SnapshotAnalysis(snapshot)
        let size = { (object: Int) in snapshot.objects.size[object] }
        let sum = { (objects: [Int]) in objects.reduce(UInt64(0)) { $0 + size($1) } }

        // A cache owning 10 blobs through its array: it retains them, the array and itself.
        let cache = try #require(objects(snapshot, "Fixture.Cache").first)
        let blobs = objects(snapshot, "Fixture.Blob")
        #expect(blobs.count == 10)
        let storage = try #require(dominator(analysis, blobs[0]))
        #expect(blobs.allSatisfy { dominator(analysis, $0) == storage })
        #expect(dominator(analysis, storage) == cache)
        #expect(dominator(analysis, cache) == nil)
        #expect(analysis.retainedSize(of: cache) == size(cache) + size(storage) + sum(blobs))
        #expect(snapshot.roots.first { $0.object == cache }?.holder.name?.contains("Fixture.cache") == true)

        // Two caches sharing three blobs: the shared ones are retained by neither.
        let shared = objects(snapshot, "Fixture.SharedBlob")
        #expect(shared.count == 3)
        #expect(shared.allSatisfy { dominator(analysis, $0) == nil })
        for sharing in objects(snapshot, "Fixture.SharingCache") {
            let own = objects(snapshot, "Fixture.OwnBlob").filter { dominator(analysis, dominator(analysis, $0) ?? -1) == sharing }
            #expect(own.count == 2)
            let array = try #require(dominator(analysis, own[0]))
            #expect(analysis.retainedSize(of: sharing) == size(sharing) + size(array) + sum(own))
        }

        // A diamond: the bottom is dominated by the top, not by either side.
        let top = try #require(objects(snapshot, "Fixture.DiamondTop").first)
        let bottom = try #require(objects(snapshot, "Fixture.DiamondBottom").first)
        let sides = objects(snapshot, "Fixture.DiamondSide")
        #expect(dominator(analysis, bottom) == top)
        #expect(sides.allSatisfy { dominator(analysis, $0) == top })
        #expect(analysis.retainedSize(of: top) == size(top) + sum(sides) + size(bottom))

        // A chain of 5: each link dominates the next; the head retains all.
        let links = objects(snapshot, "Fixture.ChainLink")
        #expect(links.count == 5)
        let head = try #require(links.first { dominator(analysis, $0) == nil })
        var current = head
        var depth = 1
        while let next = links.first(where: { dominator(analysis, $0) == current }) {
            current = next
            depth += 1
            #expect(analysis.distances[next] == Int32(depth - 1))
        }
        #expect(depth == 5)
        #expect(analysis.retainedSize(of: head) == sum(links))
        #expect(analysis.types[Int(snapshot.objects.type[head])].retainedBytes == sum(links))

        // A cycle held by a global: the parent dominates the child that points back at it.
        let parent = try #require(objects(snapshot, "Fixture.CycleParent").first)
        let child = try #require(objects(snapshot, "Fixture.CycleChild").first)
        #expect(dominator(analysis, child) == parent)
        #expect(dominator(analysis, parent) == nil)
        #expect(analysis.retainedSize(of: parent) == size(parent) + size(child))

        // The leaked ring: one leak group, and its references are exactly the leak report's.
        let report = try #require(run.report)
        let ring = objects(snapshot, "Fixture.RingNode")
        #expect(snapshot.leakedObjects == ring)
        #expect(analysis.leakGroups == [ring])
        let leakAddress = Dictionary(uniqueKeysWithValues: report.leaks.map { ($0.id, $0.address) })
        let fromReport = report.references.map { "\(leakAddress[$0.from]!) \($0.path.text) \($0.ownership) \(leakAddress[$0.to]!)" }
        let graph = snapshot.leakedGraph()
        let hex = { (node: Int) in "0x" + String(graph.nodes[node].address, radix: 16) }
        let fromSnapshot = graph.references.map { "\(hex($0.from)) \($0.path.text) \($0.ownership) \(hex($0.to))" }
        #expect(fromSnapshot.sorted() == fromReport.sorted())
        #expect(Set(snapshot.leakedObjects.map(snapshot.addressText)) == Set(report.leaks.map(\.address)))

        // The program's own types, the runtime's not.
        #expect(snapshot.type(of: cache).isProgram)
        #expect(!snapshot.type(of: storage).isProgram)
    }

    @Test("fixed: the same shapes and no leaked object", arguments: Optimization.allCases)
    func fixed(_ optimization: Optimization) async throws {
        let (run, snapshot, _) = try await snapshotRun(optimization, "fixed")
        #expect(run.result.status == 0, "\(run.result.summary)")
        #expect(snapshot.leakedObjects.isEmpty)
        #expect(objects(snapshot, "Fixture.Blob").count == 10)
        #expect(objects(snapshot, "Fixture.RingNode").isEmpty)
    }

    @Test("leakgraph snapshot: the histogram, --json, --why, --compare; bad files exit 2 with one message")
    func snapshotCommand() async throws {
        let (_, _, old) = try await snapshotRun(.debug, "shapes")
        let (_, _, new) = try await snapshotRun(.debug, "grown")
        let leakgraph = try BuildProducts.leakgraph()
        func tool(_ arguments: [String]) async throws -> ProcessResult {
            try await runProcess(leakgraph, arguments: arguments, environment: cleanEnvironment())
        }
        let text = try await tool(["snapshot", old])
        #expect(text.status == 0, "\(text.summary)")
        #expect(text.standardOutput.contains("TYPES BY RETAINED SIZE"))
        #expect(text.standardOutput.contains("ACCUMULATION POINTS"))
        let json = try await tool(["snapshot", old, "--json", "--top", "100"])
        let summary = try JSONDecoder().decode(SnapshotSummary.self, from: Data(json.standardOutput.utf8))
        #expect(summary.rows.first { $0.name == "Fixture.Blob" }?.count == 10)
        #expect(summary.rows.first { $0.name == "Fixture.RingNode" }?.leaked == 2)
        let why = try await tool(["snapshot", old, "--why", "CycleChild"])
        #expect(why.standardOutput.contains("cycleHolder → child → CycleChild"), "\(why.summary)")
        let compare = try await tool(["snapshot", new, "--compare", old])
        let blobLine = compare.standardOutput.split(separator: "\n").first { $0.contains("Blob") && $0.contains("grown") }
        #expect(blobLine?.contains("10 → 60") == true, "\(compare.summary)")

        // A truncated file: one message, exit 2.
        let data = try Data(contentsOf: URL(fileURLWithPath: new))
        let truncated = new + ".truncated"
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: truncated))
        let bad = try await tool(["snapshot", truncated])
        #expect(bad.status == 2)
        #expect(bad.standardError.split(separator: "\n").count == 1, "\(bad.summary)")
        #expect(bad.standardError.contains("truncated or damaged"))
        // A snapshot of format 1 (one row per reference): one message, exit 2.
        var older = data
        older[63] = 1  // `PRAGMA user_version`: bytes 60–63 of the header, big-endian
        let olderPath = new + ".format1"
        try older.write(to: URL(fileURLWithPath: olderPath))
        let refused = try await tool(["snapshot", olderPath])
        #expect(refused.status == 2)
        #expect(refused.standardError.split(separator: "\n").count == 1, "\(refused.summary)")
        #expect(refused.standardError.contains("was written by an older LeakGraph (snapshot format 1"), "\(refused.summary)")
        // A leak report opens as a snapshot of its leaks.
        let program = try await FixtureBuilds.shared.executable("Snapshots", .debug).path
        let run = try await LeakgraphRun.run(program, ["shapes"])
        let reportPath = new + ".json"
        try Data((run.jsonText ?? "").utf8).write(to: URL(fileURLWithPath: reportPath))
        let fromReport = try await tool(["snapshot", reportPath])
        #expect(fromReport.status == 0, "\(fromReport.summary)")
        #expect(fromReport.standardOutput.contains("(a leak report: its leaked objects alone)"))
        #expect(fromReport.standardOutput.contains("RingNode"))
    }
}

/// `leakgraph serve` opened in headless Chromium.
@Suite("leakgraph serve in headless Chromium", .timeLimit(.minutes(10)))
struct SnapshotServeTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// A running `leakgraph serve` (spawned and reaped with posix_spawn and waitpid): its URL, stopped
    /// by ``stop()``.
    final class Server: @unchecked Sendable {
        let pid: pid_t
        let url: String

        init(_ arguments: [String]) throws {
            var pipe: [Int32] = [0, 0]
            guard Glibc.pipe(&pipe) == 0 else { throw HTTPGetError(description: "pipe failed") }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipe[0])
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let executable = try BuildProducts.leakgraph().path
            let argv = ([executable, "serve"] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            // The test's threads block signals the server must take (SIGTERM ends it): a clean mask, and
            // default dispositions.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var pid: pid_t = 0
            let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            close(pipe[1])
            guard status == 0 else {
                close(pipe[0])
                throw HTTPGetError(description: "posix_spawn failed: \(status)")
            }
            self.pid = pid
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(pipe[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
            close(pipe[0])
            url = String(decoding: line, as: UTF8.self)
        }

        func stop() {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// The DOM Chromium builds for `url`.
    static func dom(_ url: String) async throws -> String {
        let profile = try Scratch.directory("chromium")
        let result = try await runProcess(
            URL(fileURLWithPath: chromium!),
            arguments: ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)", "--dump-dom", url],
            environment: cleanEnvironment())
        try? FileManager.default.removeItem(at: profile)
        return result.standardOutput
    }

    @Test("types with the filter and switches; an object page with its backtrace and graph; the comparison; a port in use",
          .enabled(if: chromium != nil, "Chromium is not installed (scripts/install-deps --tests installs it)"))
    func browse() async throws {
        let (_, oldSnapshot, old) = try await snapshotRun(.debug, "shapes")
        let (_, snapshot, new) = try await snapshotRun(.debug, "grown")
        _ = oldSnapshot
        let server = try Server([new, "--compare", old, "--port", "0"])
        defer { server.stop() }
        #expect(server.url.hasPrefix("http://127.0.0.1:"), "\(server.url)")
        let url = server.url

        let types = try await Self.dom(url)
        for type in ["Cache", "Blob", "SharingCache", "DiamondTop", "ChainLink", "RingNode", "_ContiguousArrayStorage&lt;Swift.AnyObject&gt;"] {
            #expect(types.contains(">\(type)</a>"), "\(type) missing")
        }
        let filtered = try await Self.dom(url + "types?q=Blob")
        #expect(filtered.contains(">Blob</a>") && filtered.contains(">SharedBlob</a>"))
        #expect(!filtered.contains(">DiamondTop</a>"))
        let leaks = try await Self.dom(url + "types?leaks=1")
        #expect(leaks.contains(">RingNode</a>"))
        #expect(!leaks.contains(">Cache</a>"))
        let mine = try await Self.dom(url + "types?mine=1")
        #expect(mine.contains(">Cache</a>"))
        #expect(!mine.contains("_ContiguousArrayStorage"))

        let cache = try #require(objects(snapshot, "Fixture.Cache").first)
        let page = try await Self.dom(url + "object/\(cache)")
        let backtrace = try #require(page.firstRange(of: "<ol class=\"frames\" id=\"backtrace\">").map { page[$0.upperBound...] })
        let programFrame = backtrace.firstRange(of: "<li class=\"program site\"")
        #expect(programFrame != nil, "the creation site is not an emphasised program frame")
        #expect(backtrace.prefix(600).contains("main.swift:"))
        let graph = try #require(page.firstRange(of: "id=\"neighbourhood\"").map { page[$0.upperBound...] })
        let svg = graph.prefix { _ in true }.split(separator: "</svg>").first ?? ""
        #expect(svg.contains("<svg"))
        #expect(svg.contains(">Cache<") && svg.contains(">Blob<") && svg.contains("_ContiguousArrayStorage"))
        #expect(svg.contains("/object/\(cache)"), "nodes are links")

        let comparison = try await Self.dom(url + "comparison")
        #expect(comparison.contains("<tr class=\"grown\"><td><a href=\"/type/"), "\(comparison.prefix(3000))")
        #expect(comparison.contains(">Fixture.Blob</a></td><td>grown</td>"))

        // The port is taken now: a second server says so in one message and exits with 2.
        let port = String(url.dropFirst("http://127.0.0.1:".count).dropLast())
        let second = try await runProcess(try BuildProducts.leakgraph(), arguments: ["serve", new, "--port", port], environment: cleanEnvironment())
        #expect(second.status == 2)
        #expect(second.standardError == "leakgraph: cannot listen on 127.0.0.1:\(port): the port is in use\n", "\(second.summary)")
    }
}
