import LeakGraphReport
import Testing

/// The baseline file format: versioned, one entry a line, `# reason` after it; one clear error otherwise.
@Suite("Baseline files")
struct BaselineParsingTests {
    static let file = """
        # Leaks accepted on main.
        # Reviewed in every PR that changes this file.
        version: 1

        fingerprint: 43A685AD0B19F2AD   # the ring sample, on purpose
        type: MyApp.ImageCache*         # lives for the whole process
          site:ThirdPartySDK/*
        # a comment between entries
        type: Swift.Dictionary<Swift.String, App.Node>  #  generic names have spaces  \u{20}
        site: App.make#Thing()
        """

    @Test("entries, reasons, lines, header comments; fingerprints read in lowercase")
    func parses() throws {
        let baseline = try Baseline.parse(Self.file, source: "ci/leakgraph.baseline")
        #expect(baseline.version == 1 && baseline.source == "ci/leakgraph.baseline")
        #expect(baseline.headerComments == ["Leaks accepted on main.", "Reviewed in every PR that changes this file."])
        #expect(baseline.entries.map(\.text) == [
            "fingerprint: 43a685ad0b19f2ad", "type: MyApp.ImageCache*", "site: ThirdPartySDK/*",
            "type: Swift.Dictionary<Swift.String, App.Node>", "site: App.make#Thing()",
        ])
        #expect(baseline.entries.map(\.reason) == [
            "the ring sample, on purpose", "lives for the whole process", nil, "generic names have spaces", nil,
        ])
        #expect(baseline.entries.map(\.line) == [5, 6, 7, 9, 10])
    }

    @Test("writing and reading again gives the same entries and comments")
    func roundTrip() throws {
        let baseline = try Baseline.parse(Self.file, source: "b")
        let again = try Baseline.parse(baseline.text, source: "b")
        #expect(again.headerComments == baseline.headerComments)
        #expect(again.entries.map(\.text) == baseline.entries.map(\.text))
        #expect(again.entries.map(\.reason) == baseline.entries.map(\.reason))
        #expect(baseline.text.hasPrefix("# Leaks accepted on main.\n# Reviewed in every PR that changes this file.\nversion: 1\n\n"))
        #expect(baseline.text.contains("\nfingerprint: 43a685ad0b19f2ad  # the ring sample, on purpose\n"))
    }

    @Test("CRLF line endings and a byte-order mark, as editors on Windows write them")
    func crlf() throws {
        let text = "\u{FEFF}# accepted\r\nversion: 1\r\n\r\ntype: App.Cache*  # by design\r\nfingerprint: 0123456789abcdef\r\n"
        let baseline = try Baseline.parse(text, source: "b")
        #expect(baseline.headerComments == ["accepted"])
        #expect(baseline.entries.map(\.text) == ["type: App.Cache*", "fingerprint: 0123456789abcdef"])
        #expect(baseline.entries.map(\.reason) == ["by design", nil])
        #expect(baseline.entries.map(\.line) == [4, 5])
    }

    @Test("an empty baseline (version line only) accepts nothing")
    func empty() throws {
        let baseline = try Baseline.parse("version: 1\n", source: "b")
        #expect(baseline.entries.isEmpty)
        #expect(baseline.entry(matching: "43a685ad0b19f2ad", memberTypes: ["App.Node"]) == nil)
    }

    @Test(
        "each malformed file is one error with its code and line",
        arguments: [
            ("", "missingVersion", nil as Int?, "no `version: 1` line"),
            ("# only comments\n\n", "missingVersion", nil, "no `version: 1` line"),
            ("fingerprint: 43a685ad0b19f2ad\n", "missingVersion", 1, "must be `version: 1`"),
            ("{\"version\": 1}\n", "missingVersion", 1, "must be `version: 1`"),
            ("version: 2\n", "unsupportedVersion", 1, "version 2, written by a newer LeakGraph"),
            ("version: 0\n", "unsupportedVersion", 1, "versions start at 1"),
            ("version: one\n", "unsupportedVersion", 1, "whole number"),
            ("version: 1\nfingerprint: 43a685ad\n", "malformedLine", 2, "16 hexadecimal digits"),
            ("version: 1\nfingerprint: 43a685ad0b19f2zz\n", "malformedLine", 2, "16 hexadecimal digits"),
            ("version: 1\n\ntypes: App.*\n", "malformedLine", 3, "unknown entry `types:`"),
            ("version: 1\ntype:   # nothing\n", "malformedLine", 2, "`type:` needs a value"),
            ("version: 1\nApp.Node\n", "malformedLine", 2, "expected `fingerprint:`"),
            ("version: 1\nversion: 1\n", "malformedLine", 2, "a second `version:` line"),
        ])
    func malformed(text: String, code: String, line: Int?, words: String) {
        #expect {
            _ = try Baseline.parse(text, source: "b")
        } throws: { error in
            guard let error = error as? BaselineError else { return false }
            return error.code.description == code && error.line == line && error.message.contains(words)
                && !error.description.contains("\n")
        }
    }

    @Test("glob patterns: `*` and `?` over the whole string; paths also by their trailing parts")
    func globs() {
        #expect(GlobPattern("MyApp.ImageCache*").matches("MyApp.ImageCache"))
        #expect(GlobPattern("MyApp.ImageCache*").matches("MyApp.ImageCacheEntry"))
        #expect(!GlobPattern("MyApp.ImageCache*").matches("MyApp.Images"))
        #expect(!GlobPattern("ImageCache").matches("MyApp.ImageCache"))
        #expect(GlobPattern("*Cache?").matches("App.CacheX"))
        #expect(!GlobPattern("*Cache?").matches("App.Cache"))
        #expect(GlobPattern("a*b*c").matches("a-b-b-c"))
        #expect(!GlobPattern("a*b*c").matches("a-b-b-d"))
        #expect(GlobPattern("*").matches(""))
        #expect(GlobPattern("ThirdPartySDK/*").matches(pathSuffixOf: "/src/ThirdPartySDK/Client.swift"))
        #expect(!GlobPattern("ThirdPartySDK/*").matches(pathSuffixOf: "/src/MyThirdPartySDK/Client.swift"))
        #expect(GlobPattern("main.swift").matches(pathSuffixOf: "/src/App/main.swift"))
        #expect(!GlobPattern("ThirdPartySDK/*").matches("/src/ThirdPartySDK/Client.swift"))
    }

    @Test("type entries match full names and names without their module; site entries functions and files")
    func entryMatching() {
        let type = BaselineEntry(.types([GlobPattern("ImageCache*")]))
        #expect(type.matches(fingerprint: nil, memberTypes: ["MyApp.ImageCache"], memberBacktraces: { [] }))
        #expect(type.matches(fingerprint: nil, memberTypes: ["MyApp.Node", "MyApp.ImageCacheLoader"], memberBacktraces: { [] }))
        #expect(!type.matches(fingerprint: nil, memberTypes: ["MyApp.Node"], memberBacktraces: { [] }))
        let both = BaselineEntry(.types([GlobPattern("XCTest.XCTestSuite"), GlobPattern("XCTest.XCTestSuiteRun")]))
        #expect(both.matches(fingerprint: nil, memberTypes: ["XCTest.XCTestSuiteRun", "XCTest.XCTestSuite"], memberBacktraces: { [] }))
        #expect(!both.matches(fingerprint: nil, memberTypes: ["XCTest.XCTestSuite", "App.Node"], memberBacktraces: { [] }))
        let frames = [
            LeakReport.Frame(function: "App.main() -> ()", file: "/src/App/main.swift", line: 3),
            LeakReport.Frame(function: "ThirdPartySDK.Client.init() -> ThirdPartySDK.Client", file: nil, line: nil),
        ]
        let byFile = BaselineEntry(.site(GlobPattern("App/main.swift")))
        let byFunction = BaselineEntry(.site(GlobPattern("ThirdPartySDK.*")))
        let elsewhere = BaselineEntry(.site(GlobPattern("Vendor/*")))
        #expect(byFile.matches(fingerprint: nil, memberTypes: [], memberBacktraces: { [frames] }))
        #expect(byFunction.matches(fingerprint: nil, memberTypes: [], memberBacktraces: { [[], frames] }))
        #expect(!elsewhere.matches(fingerprint: nil, memberTypes: [], memberBacktraces: { [frames] }))
        let fingerprint = BaselineEntry(.fingerprint("43a685ad0b19f2ad"))
        #expect(fingerprint.matches(fingerprint: "43a685ad0b19f2ad", memberTypes: [], memberBacktraces: { [] }))
        #expect(!fingerprint.matches(fingerprint: nil, memberTypes: [], memberBacktraces: { [] }))
    }
}
