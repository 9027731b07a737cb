import Foundation
import LeakGraphModel
import LeakGraphRender
import LeakGraphReport
import Testing

/// JUnit XML and SARIF: one case (result) per leak family, the code's own failing, libraries' and
/// accepted ones skipped (suppressed); each validated against its schema.
@Suite("JUnit and SARIF outputs")
struct CIFormatTests {
    /// The family report with creation sites: the rooms made in Room.swift, the screen in Screen.swift.
    static func located() -> LeakReport {
        var report = familyReport()
        for index in report.leaks.indices {
            let type = report.leaks[index].type
            let file = type.hasPrefix("Chat.") ? "/src/Chat/Sources/Chat/Room.swift" : type.hasPrefix("App.") ? "/src/Chat/Sources/App/Screen.swift" : nil
            report.leaks[index].backtrace = [
                LeakReport.Frame(function: "\(type).__allocating_init() -> \(type)", file: file, line: 3),
                LeakReport.Frame(function: "\(type.split(separator: ".")[0]).make() -> ()", file: file, line: type.hasSuffix("Member") ? 21 : 12),
            ]
        }
        return report
    }

    static let context = RenderContext(
        command: "leakgraph test --package-path /src/Chat", verdict: "6 leaked objects …; exit status 23 (leaks found)",
        exitStatus: 23, sourceRoot: "/src/Chat")

    @Test("JUnit: a failed case per family of the code's own, at its suspect's holder, named for its tests; the library's skipped; valid")
    func junit() throws {
        let xml = JUnitReport.render(Self.located(), context: Self.context)
        try CIValidation.validateJUnit(xml)
        #expect(xml.contains(#"<testsuites name="LeakGraph" tests="3" failures="2" errors="0" skipped="1">"#), "\(xml)")
        #expect(xml.contains(#"<testcase classname="leakgraph.RoomTests.testJoin" name="Room.member → Member.room → Room" file="/src/Chat/Sources/Chat/Room.swift" line="21">"#), "\(xml)")
        #expect(xml.contains(#"<failure type="leak" message="2 root cycles, 4 objects, 160 bytes leaked (Room, Member). Suspect: Member.room — "#), "\(xml)")
        #expect(xml.contains("Found in RoomTests.testJoin and RoomTests.testRejoin (XCTest run)."))
        #expect(xml.contains(#"<testcase classname="leakgraph.known-library-leaks" name="XCTestSuite.testRun → XCTestSuiteRun.test → XCTestSuite">"#))
        #expect(xml.contains(#"<skipped message="known leak in swift-corelibs-xctest: "#))
        #expect(xml.contains(#"<property name="exitStatus" value="23"/>"#))

        let clean = JUnitReport.render(ReportFixtures.cleanReport)
        try CIValidation.validateJUnit(clean)
        #expect(clean.contains(#"tests="1" failures="0""#) && clean.contains(#"name="no leaks"/>"#), "\(clean)")
        var odd = ReportFixtures.cleanReport
        odd.program.path = "/bin/a<b>&\"c'\u{1}"
        try CIValidation.validateJUnit(JUnitReport.render(odd))
    }

    @Test("SARIF 2.1.0: a result per family at the user's source line relative to SRCROOT, suppressions for the library's; valid")
    func sarif() throws {
        let data = SARIFReport.render(Self.located(), context: Self.context, version: "1.0")
        try CIValidation.validateSARIF(data)
        let log = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.map { $0["level"] as? String } == ["error", "error", "note"])
        let rooms = results[0]
        let message = try #require((rooms["message"] as? [String: Any])?["text"] as? String)
        #expect(message.hasPrefix("Retain cycle: Room.member → Member.room → Room — 2 root cycles, 4 objects, 160 bytes leaked (Room, Member). Suspect: Member.room"), "\(message)")
        #expect(message.contains("Found in RoomTests.testJoin and RoomTests.testRejoin (XCTest run)."))
        let location = try #require(((rooms["locations"] as? [[String: Any]])?.first?["physicalLocation"]) as? [String: Any])
        #expect((location["artifactLocation"] as? [String: Any])?["uri"] as? String == "Sources/Chat/Room.swift")
        #expect((location["artifactLocation"] as? [String: Any])?["uriBaseId"] as? String == "SRCROOT")
        #expect((location["region"] as? [String: Any])?["startLine"] as? Int == 21)
        #expect((rooms["partialFingerprints"] as? [String: String])?["leakGraph/v1"] != nil)
        #expect(((rooms["properties"] as? [String: Any])?["leakedTypes"] as? [String]) == ["Chat.Room", "Chat.Member"])
        #expect(results[2]["suppressions"] != nil && results[0]["suppressions"] == nil)
        #expect(((run["originalUriBaseIds"] as? [String: Any])?["SRCROOT"] as? [String: Any])?["uri"] as? String == "file:///src/Chat/")
        #expect((run["invocations"] as? [[String: Any]])?.first?["exitCode"] as? Int == 23)

        try CIValidation.validateSARIF(SARIFReport.render(ReportFixtures.cleanReport))
    }
}

/// Runs the validators the tests use: xmllint (Debian's libxml2-utils) with the JUnit schema beside
/// these tests, and Python's `jsonschema` with the SARIF 2.1.0 schema, which is not in the repository
/// (OASIS publishes it under its IPR policy, not an open-source licence): it is read from
/// `LEAKGRAPH_SARIF_SCHEMA`, or from `.build/test-schemas/` where `scripts/install-deps --tests`
/// downloads it. Without the schema (or jsonschema) the schema check is skipped with a message; the
/// tests' own checks of the log's structure still run.
enum CIValidation {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func validateJUnit(_ xml: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Schemas/junit.xsd")
        let result = try run(["xmllint", "--noout", "--schema", schema.path, "-"], input: Data(xml.utf8))
        #expect(result.status == 0, "xmllint: \(result.output)\n\(xml)", sourceLocation: sourceLocation)
    }

    /// The SARIF 2.1.0 schema, when it can be found.
    static var sarifSchema: URL? {
        if let path = ProcessInfo.processInfo.environment["LEAKGRAPH_SARIF_SCHEMA"], FileManager.default.fileExists(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        let cached = packageRoot.appendingPathComponent(".build/test-schemas/sarif-schema-2.1.0.json")
        return FileManager.default.fileExists(atPath: cached.path) ? cached : nil
    }

    static func validateSARIF(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let schema = sarifSchema, (try? run(["python3", "-c", "import jsonschema"], input: Data()))?.status == 0 else {
            print("CIFormatTests: the SARIF 2.1.0 schema or Python's jsonschema is not here (LEAKGRAPH_SARIF_SCHEMA, or "
                + "scripts/install-deps --tests with network access); the SARIF output is checked without it")
            return
        }
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.validate(json.load(sys.stdin), schema)
            """
        let result = try run(["python3", "-c", script, schema.path], input: data)
        #expect(result.status == 0, "jsonschema: \(result.output)", sourceLocation: sourceLocation)
    }

    static func run(_ arguments: [String], input: Data) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
