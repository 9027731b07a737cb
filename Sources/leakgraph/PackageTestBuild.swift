import Foundation
import LeakGraphRender
import LeakGraphReport

/// Builds a Swift package's tests with `swift build --build-tests` and finds the test bundle
/// `…PackageTests.xctest` (on Linux an executable) that `leakgraph test` runs.
struct PackageTestBuild {
    /// The package's directory, absolute.
    let packagePath: String
    /// The build directory given to SwiftPM as `--scratch-path`; `nil` for SwiftPM's default, the
    /// package's own `.build`.
    let scratchPath: String?
    /// More arguments for `swift build` (e.g. `-c release`, `-Xswiftc -enable-testing`).
    let extraArguments: [String]

    /// Checks that `path` is a package directory (it holds a `Package.swift`).
    /// - Throws: ``ToolError`` when it is not.
    init(packagePath path: String, scratchPath: String?, extraArguments: [String]) throws(ToolError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ToolError("\(path) is not a Swift package: no such directory")
        }
        guard FileManager.default.fileExists(atPath: path + "/Package.swift") else {
            throw ToolError("\(path) is not a Swift package: it has no Package.swift")
        }
        packagePath = PreloadLibraryLocator.absolutePath(path) ?? path
        self.scratchPath = scratchPath
        self.extraArguments = extraArguments
    }

    /// The package's directory name, for messages.
    var name: String { URL(fileURLWithPath: packagePath).lastPathComponent }

    /// The arguments of `swift build` that pick the package, the build directory and the user's options.
    private var commonArguments: [String] {
        ["--package-path", packagePath] + (scratchPath.map { ["--scratch-path", $0] } ?? []) + extraArguments
    }

    /// The `swift build` command that builds the tests, as the user would type it.
    var buildCommand: String {
        (["swift", "build", "--build-tests"] + commonArguments).map(ReportNaming.shellQuoted).joined(separator: " ")
    }

    /// Builds the tests and returns the path of the test bundle. The build's output is shown only when
    /// it fails.
    /// - Throws: ``ToolError`` when `swift` is missing, the build fails (with its output), or it made no
    ///   test bundle.
    func build(environment: [String: String]) throws(ToolError) -> String {
        let swift = try ExecutableLocator.resolve("swift", searchPath: environment["PATH"])
        printError("leakgraph: building the tests: \(buildCommand)")
        let build = try CapturedProcess.run(
            swift, ["build", "--build-tests"] + commonArguments, environment: environment)
        guard build.succeeded else {
            let output = build.output.hasSuffix("\n") ? String(build.output.dropLast()) : build.output
            throw ToolError("the build of the tests failed (\(build.termination.summary)):\n\(output)")
        }
        let binPath = try CapturedProcess.run(
            swift, ["build", "--show-bin-path"] + commonArguments, environment: environment,
            capturesStandardError: false)
        let directory = binPath.output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        guard binPath.succeeded, !directory.isEmpty else {
            throw ToolError("swift build --show-bin-path failed (\(binPath.termination.summary)): \(binPath.output)")
        }
        return try Self.testBundle(in: directory)
    }

    /// The `…PackageTests.xctest` in `directory`; the newest one when there are several (a package that
    /// was renamed).
    /// - Throws: ``ToolError`` when there is none (the package has no test targets).
    static func testBundle(in directory: String) throws(ToolError) -> String {
        let files = FileManager.default
        let names = ((try? files.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0.hasSuffix("PackageTests.xctest")
        }
        let newest = names.map { directory + "/" + $0 }.max { first, second in
            let firstDate = (try? files.attributesOfItem(atPath: first)[.modificationDate] as? Date) ?? .distantPast
            let secondDate = (try? files.attributesOfItem(atPath: second)[.modificationDate] as? Date) ?? .distantPast
            return firstDate < secondDate
        }
        guard let newest else {
            throw ToolError("the build made no …PackageTests.xctest in \(directory): the package has no test targets")
        }
        return newest
    }
}

extension Termination {
    /// `exit status N` or `killed by signal N`.
    var summary: String {
        switch self {
        case .exited(let status): "exit status \(status)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }
}
