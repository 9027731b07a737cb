import Foundation

/// Compiles fixtures that record in-process: linked with the LeakGraph library's objects from the
/// build products (`$LEAKGRAPH_BIN_DIR`), with no preloaded library, so frees of Swift objects reach
/// the recorder only through the `free` imports `lg_install` patches.
///
/// The objects are those SwiftPM linked into `libLeakGraphPreloadChecker.so` (its link-file list) minus
/// the checker's own entry points: the hook, the heap walk, the analysis, the report and the
/// `LeakGraph` façade. Each build happens at most once per test process.
actor InProcessBuilds {
    static let shared = InProcessBuilds()

    private struct Key: Hashable {
        var name: String
        var optimization: Optimization
        var harness: Bool
    }

    private var builds: [Key: Task<URL, any Error>] = [:]

    /// Fixture `name` (its `main.swift`, plus the shared plumbing when it uses it) at `optimization`.
    /// With `harness`, also `Tests/Fixtures/InProcessHarness`: recording starts before `main` and the
    /// leak check runs at exit, writing its JSON report to `$LEAKGRAPH_INPROCESS_OUTPUT`.
    func executable(_ name: String, _ optimization: Optimization, harness: Bool) async throws -> URL {
        let key = Key(name: name, optimization: optimization, harness: harness)
        if let build = builds[key] {
            return try await build.value
        }
        let build = Task { try await Self.compile(name, optimization, harness: harness) }
        builds[key] = build
        return try await build.value
    }

    private static var sourcesDirectory: URL {
        FixtureBuilds.fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources", isDirectory: true)
    }

    /// The objects of the LeakGraph library, from the checker product's link-file list.
    private static func libraryObjects(_ products: URL) throws -> [String] {
        let list = products.appendingPathComponent("LeakGraphPreloadChecker.product/Objects.LinkFileList")
        guard let text = try? String(contentsOf: list, encoding: .utf8) else {
            throw BuildProducts.Missing(description: "\(list.path) is missing: run `swift build` first")
        }
        return text.split(whereSeparator: \.isNewline).map(String.init).filter {
            !$0.contains("/CLeakGraphPreloadStart.build/") && !$0.contains("/LeakGraphPreloadChecker.build/")
        }
    }

    private static func compile(_ name: String, _ optimization: Optimization, harness: Bool) async throws -> URL {
        let products = BuildProducts.directory
        let fixtures = FixtureBuilds.fixturesDirectory
        let folder = try Scratch.directory("inprocess")
        let source = fixtures.appendingPathComponent(name).appendingPathComponent("main.swift")
        var sources = [source.path]
        if (try? String(contentsOf: source, encoding: .utf8))?.contains("parseMode(") == true {
            sources.append(fixtures.appendingPathComponent("Support/FixturePlumbing.swift").path)
        }
        let contractInclude = sourcesDirectory.appendingPathComponent("CLeakGraphContract/include").path
        let hookInclude = sourcesDirectory.appendingPathComponent("CLeakGraphHook/include").path
        var objects = try libraryObjects(products)
        if harness {
            sources.append(fixtures.appendingPathComponent("InProcessHarness/harness.swift").path)
            let start = folder.appendingPathComponent("start.o")
            let compiled = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/env"),
                arguments: [
                    "clang", "-c", "-fPIC", "-O1", "-I", hookInclude, "-I", contractInclude,
                    fixtures.appendingPathComponent("InProcessHarness/start.c").path, "-o", start.path,
                ],
                environment: cleanEnvironment())
            guard compiled.status == 0, !compiled.signaled else {
                throw FixtureBuilds.CompileError(description: "cannot compile the in-process harness: \(compiled.summary)")
            }
            objects.append(start.path)
        }
        let moduleMaps = ["CLeakGraphHook", "CLeakGraphMetadata", "CLeakGraphContract"].flatMap {
            ["-Xcc", "-fmodule-map-file=" + products.appendingPathComponent("\($0).build/module.modulemap").path]
        }
        let output = folder.appendingPathComponent(name + "-" + optimization.rawValue)
        let arguments =
            ["swiftc", "-g", optimization.flag, "-module-name", "Fixture"] + sources
            + ["-I", products.appendingPathComponent("Modules").path] + moduleMaps
            + ["-Xcc", "-I", "-Xcc", contractInclude,
               "-Xcc", "-fmodule-map-file=" + sourcesDirectory.appendingPathComponent("CLibDW/module.modulemap").path,
               "-Xcc", "-fmodule-map-file=" + sourcesDirectory.appendingPathComponent("CSQLite/module.modulemap").path]
            + objects + ["-ldw", "-lelf", "-lsqlite3", "-o", output.path]
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments, environment: cleanEnvironment())
        guard result.status == 0, !result.signaled else {
            throw FixtureBuilds.CompileError(description: "\(arguments.joined(separator: " ")) failed: \(result.summary)")
        }
        return output
    }
}
