import Foundation

/// Builds `Tests/Fixtures/FakePreload/fake_preload.c` into a shared library once per test process: a
/// stand-in for `libLeakGraphPreload.so` that plays the preload side of the contract on demand.
actor FakePreload {
    static let shared = FakePreload()

    private var build: Task<URL, any Error>?

    /// The built library.
    func library() async throws -> URL {
        if let build {
            return try await build.value
        }
        let build = Task { try await Self.compile() }
        self.build = build
        return try await build.value
    }

    private static func compile() async throws -> URL {
        let source = FixtureBuilds.fixturesDirectory.appendingPathComponent("FakePreload/fake_preload.c")
        let output = try Scratch.directory("fake-preload").appendingPathComponent("libFakePreload.so")
        var failures: [String] = []
        for compiler in ["cc", "clang"] {
            let result = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/env"),
                arguments: [compiler, "-shared", "-fPIC", "-O1", "-o", output.path, source.path],
                environment: cleanEnvironment()
            )
            if result.status == 0, !result.signaled {
                return output
            }
            failures.append("\(compiler): \(result.summary)")
        }
        throw FixtureBuilds.CompileError(
            description: "cannot build the fake preload library (needs cc or clang): \(failures.joined(separator: "\n"))"
        )
    }
}
