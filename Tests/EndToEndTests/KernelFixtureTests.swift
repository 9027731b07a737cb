import LeakGraphReport
import Testing

// Where the holder scan looks beyond the process's memory and beyond what the walk reads exactly
// (docs/how-it-works.md, "Orphaned retains", "Raw pointers"), at -Onone and -O under `leakgraph run`:
// pointers the kernel keeps for a thread that will get them back (never a leak),
// and retained raw context pointers kept inside a cycle or in malloc'd memory only a leaked object
// points to.

@Suite("The kernel's places and raw pointers", .timeLimit(.minutes(10)))
struct KernelFixtureTests {
    @Test(
        "a pointer the kernel keeps (an epoll registration, bytes in a pipe or socket, a POSIX timer's value) holds its object; emptied without the release, each is an orphan",
        arguments: Optimization.allCases)
    func kernelHeld(_ optimization: Optimization) async throws {
        let connection = CycleShape(members: ["Fixture.Connection"], holds: ["(arrayStorage)"])
        let report = try await checkFixture(
            "KernelHeld", optimization, leaking: LeakExpectation(connection, times: 3),
            cleanModes: ["epoll", "pipe", "socket", "timer"])
        guard let report else { return }
        #expect(report.cycles.allSatisfy { $0.kind == LeakReport.Cycle.orphanKind })
        #expect(!report.diagnostics.contains { $0.reason.contains("kernel keeps words") }, "\(report.diagnostics)")
    }

    @Test("a retained pointer in a UDP socket's queue, which is not read: nothing is reported, and the report says why",
          arguments: Optimization.allCases)
    func kernelUnread(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("KernelHeld", optimization).path
        let run = try await LeakgraphRun.run(program, ["udp"])
        expectNoLeaks(run, program: program, mode: "udp")
        let reasons = run.report?.diagnostics.filter { $0.typeName == "Fixture.Connection" }.map(\.reason) ?? []
        #expect(
            reasons.contains { $0.contains("the kernel keeps words it cannot read") && $0.contains("in a socket's receive queue") },
            "\(run.report?.diagnostics ?? [])")
    }

    @Test(
        "a retained context pointer in a raw field of another object of the cycle, and in a malloc'd slot only the leaked object points to, close root cycles; kept by a live object or a global, or released, nothing",
        arguments: Optimization.allCases)
    func rawContexts(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "RawContexts", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Owner", "Fixture.Connection"]),
                CycleShape(members: ["Fixture.Client"], holds: ["Fixture.Handler"]),
            ]),
            cleanModes: ["liveField", "liveSlot", "released"])
        guard let report else { return }
        let labels = report.references.map(\.label).sorted()
        #expect(labels == ["connection", "context (raw pointer)", "handler", "registration (malloc'd memory, raw pointer)"], "\(labels)")
        // Every retain is accounted for: the raw pointers explain the retains nothing else did.
        #expect(report.cycles.allSatisfy { $0.kind == nil })
        #expect(report.leaks.allSatisfy { $0.proof.map { $0.retainCount == $0.inEdges.count } == true }, "\(report.leaks)")
    }
}
