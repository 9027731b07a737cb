import Foundation
import LeakGraphReport
import Testing

// Which test made each leak, under `leakgraph test`: a generated package whose tests each leak a ring of
// a type of their own (`Ring<T7>` is made by test 7 only), Swift Testing's run in parallel (its
// default), its tests interleaving on purpose (yields, sleeps, child tasks, unstructured tasks), and
// XCTest's run one test at a time. Every cycle must name exactly the test whose type it has; one made
// in a detached task (no test's task) names none.

@Suite("Which test made each leak", .serialized, .timeLimit(.minutes(10)))
struct TestAttributionTests {
    /// The number of Swift Testing tests (run in parallel) and of XCTest tests.
    static let swiftTestingTests = 32
    static let xctestTests = 8

    /// Writes the package.
    static func package() throws -> URL {
        let root = try Scratch.directory("attribution-package")
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write("Package.swift", """
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(
                name: "Attribution",
                targets: [.target(name: "Rings"), .testTarget(name: "RingsTests", dependencies: ["Rings"])]
            )
            """)
        try write("Sources/Rings/Ring.swift", """
            /// A ring of two nodes that leaks: `Tag` says which test made it.
            public final class Ring<Tag> {
                public var next: Ring<Tag>?
                public init() {}
                @inline(never) public static func leak() {
                    let a = Ring<Tag>(), b = Ring<Tag>()
                    a.next = b
                    b.next = a
                }
            }
            """)
        var swiftTesting = "import Rings\nimport Testing\n\n"
        for index in 0..<swiftTestingTests {
            swiftTesting += "public enum T\(index) {}\n"
        }
        swiftTesting += "public enum Detached {}\n\n@Suite struct ParallelRings {\n"
        for index in 0..<swiftTestingTests {
            // Four ways to make the leak: in the test's body, in a child task of a group, in an `async let`,
            // in an unstructured task; each test first lets the others run.
            let make: String
            switch index % 4 {
            case 0: make = "Ring<T\(index)>.leak()"
            case 1: make = "await withTaskGroup(of: Void.self) { group in group.addTask { Ring<T\(index)>.leak() } }"
            case 2: make = "async let made: Void = Ring<T\(index)>.leak(); await made"
            default: make = "await Task { Ring<T\(index)>.leak() }.value"
            }
            swiftTesting += """
                    @Test func test\(index)() async throws {
                        for _ in 0..<\(index % 5 + 1) { await Task.yield() }
                        try await Task.sleep(for: .milliseconds(\((index * 7) % 23)))
                        \(make)
                        await Task.yield()
                    }

                """
        }
        swiftTesting += """
                @Test func detached() async {
                    await Task.detached { Ring<Detached>.leak() }.value
                }
            }

            """
        try write("Tests/RingsTests/ParallelRings.swift", swiftTesting)
        var xctest = "import Rings\nimport XCTest\n\n"
        for index in 0..<xctestTests {
            xctest += "public enum X\(index) {}\n"
        }
        xctest += "final class SerialRings: XCTestCase {\n"
        for index in 0..<xctestTests {
            xctest += "    func test\(index)() { Ring<X\(index)>.leak() }\n"
        }
        xctest += "}\n"
        try write("Tests/RingsTests/SerialRings.swift", xctest)
        return root
    }

    @Test("every cycle names the test that made it: Swift Testing in parallel, XCTest one at a time; a detached task's, none")
    func exact() async throws {
        let package = try Self.package()
        let run = try await LeakgraphTest.run(package: package, scratch: package.appendingPathComponent(".build"))
        #expect(run.result.status == 23, "\(run.result.summary)")
        let report = try #require(run.report, "\(run.result.summary)")
        var checked = 0
        for cycle in report.cycles where cycle.knownLibraryLeak == nil {
            let type = try #require(report.leaks.first { $0.id == cycle.members[0] }?.type)
            // `Rings.Ring<RingsTests.T7>` → `T7`.
            let tag = String(type.split(separator: ".").last?.dropLast() ?? "")
            let expected: [String]
            if tag == "Detached" {
                expected = []
            } else if tag.hasPrefix("T") {
                expected = ["ParallelRings.test\(tag.dropFirst())()"]
            } else {
                expected = ["SerialRings.test\(tag.dropFirst())"]
            }
            #expect(cycle.tests == expected, "\(type): \(cycle.tests ?? ["(not observed)"])")
            checked += 1
        }
        #expect(checked == Self.swiftTestingTests + Self.xctestTests + 1, "\(report.cycles.count) root cycles")
    }
}
