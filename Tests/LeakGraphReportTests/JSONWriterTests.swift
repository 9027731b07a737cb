import Foundation
import LeakGraphModel
import LeakGraphReport
import LeakGraphTestSupport
import Testing

/// The JSON writer behind `jsonData(prettyPrinted:)` is held to the `Codable` conformance encoded by
/// `JSONEncoder`: the same document (parsed, compared as Foundation objects), keys in byte order, and a
/// round trip through `LeakReport.decode(from:)`.
@Suite("JSON report writer")
struct JSONWriterTests {
    /// Every report the writer is checked on, by name.
    static let reports: [(String, LeakReport)] = [
        ("leaking fixture", ReportFixtures.leakingReport),
        ("clean fixture", ReportFixtures.cleanReport),
        ("leaking fixture, version 1", WriterFixtures.version1(ReportFixtures.leakingReport)),
        ("clean fixture, version 1", WriterFixtures.version1(ReportFixtures.cleanReport)),
        ("every path step and optional", WriterFixtures.everything),
        ("every path step and optional, version 1", WriterFixtures.version1(WriterFixtures.everything)),
        ("escapes and non-ASCII", WriterFixtures.escapes),
        ("escapes and non-ASCII, version 1", WriterFixtures.version1(WriterFixtures.escapes)),
        ("retainer chains (--why)", WriterFixtures.withRetainers),
        ("allocation profile (--allocations)", AllocationFixtures.report),
        ("per-test allocations", AllocationFixtures.testReport),
    ]

    /// The names of ``reports``: the test arguments.
    static let names = reports.map(\.0)

    /// The report called `name` in ``reports``.
    static func report(named name: String) throws -> LeakReport {
        try #require(reports.first { $0.0 == name }?.1)
    }

    /// What `jsonData` wrote before the writer: the `Codable` conformance through `JSONEncoder`.
    static func encoderData(_ report: LeakReport, prettyPrinted: Bool) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if prettyPrinted {
            encoder.outputFormatting.insert(.prettyPrinted)
        }
        return try encoder.encode(report)
    }

    @Test("the writer's output decodes to the same report", arguments: names, [true, false])
    func roundTrip(name: String, prettyPrinted: Bool) throws {
        let report = try Self.report(named: name)
        var expected = report
        // Decoding fills in a suspect's missing reference index.
        expected.resolveSuspectReferences()
        #expect(try LeakReport.decode(from: report.jsonData(prettyPrinted: prettyPrinted)) == expected)
    }

    @Test("the writer's document equals JSONEncoder's", arguments: names, [true, false])
    func sameDocument(name: String, prettyPrinted: Bool) throws {
        let report = try Self.report(named: name)
        let written = try JSONSerialization.jsonObject(with: report.jsonData(prettyPrinted: prettyPrinted))
        let encoded = try JSONSerialization.jsonObject(with: Self.encoderData(report, prettyPrinted: prettyPrinted))
        let writtenObject = try #require(written as? NSDictionary)
        let encodedObject = try #require(encoded as? NSDictionary)
        #expect(writtenObject.isEqual(encodedObject))
        #expect(writtenObject.count >= 7)
    }

    @Test("comparing parsed documents notices a changed value, a null for a missing field, and key order not")
    func comparisonIsNotVacuous() throws {
        func parsed(_ json: String) throws -> NSDictionary {
            try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
        }
        let base = try parsed(#"{"a":[1,{"b":null,"c":"x"}],"d":2}"#)
        #expect(base.isEqual(try parsed(#"{"d":2,"a":[1,{"c":"x","b":null}]}"#)))
        #expect(!base.isEqual(try parsed(#"{"a":[1,{"b":null,"c":"y"}],"d":2}"#)))
        #expect(!base.isEqual(try parsed(#"{"a":[1,{"c":"x"}],"d":2}"#)))
        #expect(!base.isEqual(try parsed(#"{"a":[1,{"b":0,"c":"x"}],"d":2}"#)))
        let leaking = try JSONSerialization.jsonObject(with: ReportFixtures.leakingReport.jsonData()) as? NSDictionary
        var changed = ReportFixtures.leakingReport
        changed.leaks[5].backtrace[0].line = nil
        #expect(leaking?.isEqual(try JSONSerialization.jsonObject(with: changed.jsonData())) == false)
    }

    @Test("every object's keys are in byte order", arguments: names, [true, false])
    func sortedKeys(name: String, prettyPrinted: Bool) throws {
        let data = try Self.report(named: name).jsonData(prettyPrinted: prettyPrinted)
        let objects = try #require(KeyOrder.keysOfEveryObject(in: Array(data)))
        #expect(objects.count >= 3)
        for keys in objects {
            #expect(zip(keys, keys.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) }, "\(keys.map { String(decoding: $0, as: UTF8.self) })")
        }
    }

    /// Stronger than the contract (which is the document, not its bytes): with this toolchain's
    /// Foundation the bytes match too, indentation and escapes included, so `--json` files do not change
    /// when the writer replaced the encoder. If a Foundation update changes its layout, this test may be
    /// relaxed; the three above are the contract.
    @Test("the writer's bytes equal JSONEncoder's", arguments: names, [true, false])
    func sameBytes(name: String, prettyPrinted: Bool) throws {
        let report = try Self.report(named: name)
        let written = try report.jsonData(prettyPrinted: prettyPrinted)
        let encoded = try Self.encoderData(report, prettyPrinted: prettyPrinted)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    }

    @Test("strings are escaped per RFC 8259: quote, backslash and control characters only")
    func escapes() throws {
        var report = ReportFixtures.cleanReport
        report.program.arguments = ["a\"b\\c/d", "\u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F}\u{7F}", "é😀\u{2028}"]
        let text = String(decoding: try report.jsonData(prettyPrinted: false), as: UTF8.self)
        #expect(text.contains(#"["a\"b\\c/d","\u0000\u0001\b\t\n\u000b\f\r\u001f"# + "\u{7F}\",\"é😀\u{2028}\"]"))
    }

    @Test("integers are written in decimal, negative and extreme ones too")
    func integers() throws {
        var report = ReportFixtures.cleanReport
        report.program.exitStatus = -1
        report.summary = .init(trackedObjects: Int.max, liveObjects: Int.min, leakedObjects: 0, leakedBytes: 10, rootCycles: 9)
        let text = String(decoding: try report.jsonData(prettyPrinted: false), as: UTF8.self)
        #expect(text.contains(#""exitStatus":-1,"#))
        #expect(text.contains(#""summary":{"leakedBytes":10,"leakedObjects":0,"liveObjects":-9223372036854775808,"rootCycles":9,"trackedObjects":9223372036854775807}"#))
    }

    @Test("version 2 numbers stacks by first appearance, sharing storage or not")
    func stackNumbering() throws {
        var report = ReportFixtures.leakingReport
        let first = [LeakReport.Frame(function: "a", file: nil, line: 1)]
        let second = [LeakReport.Frame(function: "b", file: "/b.swift", line: nil)]
        let pattern = [second, [], first, second, Array(first), [], first]
        for index in report.leaks.indices {
            report.leaks[index].backtrace = pattern[index % pattern.count].map { $0 }
        }
        let object = try #require(try JSONSerialization.jsonObject(with: report.jsonData(prettyPrinted: false)) as? [String: Any])
        let leaks = try #require(object["leaks"] as? [[String: Any]])
        let stacks = leaks.prefix(7).map { $0["stack"] as? Int }
        #expect(stacks == [0, nil, 1, 0, 1, nil, 1])
        #expect((object["stacks"] as? [Any])?.count == 2)
        #expect(try LeakReport.decode(from: report.jsonData()) == report)
    }
}

/// Hand-built reports for the writer: every path step, every optional both ways, hard strings.
enum WriterFixtures {
    /// `report` as schema version 1 writes it (a backtrace per leak).
    static func version1(_ report: LeakReport) -> LeakReport {
        var old = report
        old.schemaVersion = 1
        return old
    }

    /// One step of every kind, dictionary steps with and without keys of both kinds.
    static let allSteps: [PathStep] = [
        .property("delegate"), .tupleElement("0"), .tupleElement("label"), .enumCase("connected"), .optionalPayload,
        .indirectPayload, .existentialValue(type: "App.Box"), .existentialBox(existential: "any App.P", type: "App.Big"),
        .element(2), .element(0), .dictionaryKey(DictionaryKey(kind: .string, text: "\"name\"")),
        .dictionaryKey(DictionaryKey(kind: .integer, text: "-42")), .dictionaryKey(nil),
        .dictionaryValue(DictionaryKey(kind: .string, text: "\"a\\\"b\"")), .dictionaryValue(nil), .setMember,
        .closureContext, .capture(1), .captureBox, .boxValue, .errorValue, .storage, .label("old label [3]"),
        .taskHandle, .taskClosure, .resumesTask, .suspendedForever, .rawPointer(field: "context", offset: 24),
        .rawPointer(field: nil, offset: 144), .ownedMemoryPointer(field: "registration", offset: 16),
        .ownedMemoryPointer(field: nil, offset: 40), .asyncFrames, .childTask,
    ]

    /// Leaks with and without `cycle`, `proof` and backtraces; frames with and without `file` and
    /// `line`; cycles with every optional field set, none set, and empty held cycles; every path step.
    /// The clean fixture with a `why` answer: a chain with every optional field, one with none, and a
    /// type with no live object.
    static var withRetainers: LeakReport {
        var report = ReportFixtures.cleanReport
        let chain = RetainerChain(
            links: [
                RetainerChain.Link(type: "App.Hub", address: "0x1000", retainCount: 1),
                RetainerChain.Link(type: "App.View", address: "0x2000", retainCount: 2, label: "observers[0] \"é\""),
            ],
            holder: RetainerChain.Holder(kind: .global, name: "static App.Hub.shared : App.Hub", location: "App", address: "0x55"),
            unexplainedRetains: 1)
        let bare = RetainerChain(
            links: [RetainerChain.Link(type: "App.View", address: "0x3000", retainCount: 1)],
            holder: RetainerChain.Holder(kind: .unknown), unexplainedRetains: 2)
        report.diagnostics.append(
            WalkDiagnostic(typeName: "App.Bus", reason: "subscribers: not read", objectCount: 2, site: "main.swift:9 in App.makeBus() -> App.Bus"))
        report.why = [
            RetainerQuery(type: "View", matched: 3, leaked: 1, chains: [chain, bare]),
            RetainerQuery(type: "Gone", matched: 0, leaked: 0, chains: []),
        ]
        return report
    }

    static var everything: LeakReport {
        let site = [
            LeakReport.Frame(function: "App.make() -> App.Node", file: "/src/App/main.swift", line: 7),
            LeakReport.Frame(function: "0x7f0000001234", file: nil, line: nil),
            LeakReport.Frame(function: "main", file: "/src/App/main.swift", line: nil),
            LeakReport.Frame(function: "start", file: nil, line: 0),
        ]
        let leaks = [
            LeakReport.Leak(
                id: 0, address: "0x1000", type: "App.Node", kind: "class", size: 32, retainCount: 2, cycle: 0,
                backtrace: site, proof: .init(retainCount: 2, inEdges: [1, 2])),
            LeakReport.Leak(
                id: 1, address: "0x1040", type: "App.Node", kind: "class", size: 32, retainCount: 1, cycle: nil,
                backtrace: [], proof: .init(retainCount: 0, inEdges: [])),
            LeakReport.Leak(
                id: 2, address: "0x1080", type: "closure context", kind: "closureContext", size: 48, retainCount: 1,
                cycle: 1, backtrace: Array(site.prefix(1))),
            LeakReport.Leak(
                id: 3, address: "0x10c0", type: "Swift._ContiguousArrayStorage<App.Node>", kind: "arrayStorage",
                size: 64, retainCount: 1, cycle: 1, backtrace: site),
        ]
        var references: [LeakReport.LeakReference] = allSteps.enumerated().map { position, step in
            LeakReport.LeakReference(
                from: position % 4, to: (position + 1) % 4, path: ReferencePath([step]),
                ownership: Ownership.allCases[position % Ownership.allCases.count])
        }
        references.append(.init(from: 0, to: 1, path: ReferencePath(allSteps), ownership: .strong))
        references.append(.init(from: 1, to: 0, path: .empty, ownership: .weak))
        references.append(.init(from: 2, to: 3, path: path("state (.connected).conn"), ownership: .unowned))
        return LeakReport(
            program: .init(path: "/work/build/App", arguments: [], exitStatus: 3, running: true),
            summary: .init(trackedObjects: 10, liveObjects: 8, leakedObjects: 4, leakedBytes: 176, rootCycles: 3),
            leaks: leaks, references: references,
            cycles: [
                .init(
                    id: 0, members: [0, 1], holds: [], heldCycles: [[2, 3], []], fingerprint: "lg1-0123abcd",
                    suspect: .init(reference: 1, from: 1, to: 2, label: "tupleElement", reason: "it closes the cycle", hint: "make it weak"),
                    otherCuts: [
                        .init(reference: 0, from: 0, to: 1, label: "owner", reason: "a second loop", hint: "make it `weak var owner`"),
                        .init(from: 1, to: 0, label: "back", reason: "r", hint: "h"),
                    ],
                    knownLibraryLeak: "XCTest: the test case holds its own run"),
                .init(
                    id: 1, members: [2, 3], holds: [0], heldCycles: [], kind: LeakReport.Cycle.orphanKind,
                    suppressed: .init(baseline: "ci/leakgraph.baseline", entry: "type: App.*", line: 4, reason: "accepted")),
                .init(
                    id: 2, members: [], holds: [],
                    suspect: .init(from: 2, to: 3, label: "state (.connected).conn", reason: "r", hint: "h"),
                    suppressed: .init(baseline: "b", entry: "fingerprint: 0123456789abcdef")),
            ],
            diagnostics: [
                WalkDiagnostic(typeName: "Foundation.NSCache", reason: "layout not read yet", objectCount: 2),
                WalkDiagnostic(typeName: "", reason: "", objectCount: 0),
            ]
        )
    }

    /// Strings that need escapes, and ones that must not be escaped (`/`, DEL, non-ASCII, emoji).
    static var escapes: LeakReport {
        var controls = ""
        for value in 0 ..< 0x20 {
            controls.unicodeScalars.append(Unicode.Scalar(UInt8(value)))
        }
        let hard = "quote \" backslash \\ slash / del \u{7F} controls \(controls) end"
        var report = everything
        report.program = .init(path: "/tmp/dir with spaces/\"quoted\"\\App", arguments: [hard, "", "😀", "naïve café"], exitStatus: 0)
        report.leaks[0].type = "Ünïcödé.Typé<Ω, 日本語>"
        report.leaks[1].type = "App.🐛Bug"
        report.leaks[2].address = hard
        report.leaks[0].backtrace[0].function = "App.f(\"x\\n\") -> \u{2028}\u{2029}\u{FEFF}"
        report.leaks[0].backtrace[0].file = "C:\\src\\main.swift\t"
        report.references.append(.init(from: 0, to: 1, path: [.property(hard), .dictionaryValue(DictionaryKey(kind: .string, text: hard))], ownership: .strong))
        report.cycles[0].fingerprint = hard
        report.cycles[0].knownLibraryLeak = "\u{1B}[31mred\u{1B}[0m"
        report.cycles[1].suppressed?.reason = hard
        report.cycles[0].suspect?.reason = "line one\nline two\r\n"
        report.cycles[0].suspect?.hint = "tab\there, bell \u{7} form \u{C} back \u{8}"
        report.diagnostics[1] = WalkDiagnostic(typeName: "Ω≈ç√", reason: hard, objectCount: -7)
        return report
    }
}

/// Reads the keys of every object in a JSON document in the order written, for checking their order.
/// Test code only; it trusts the document to be valid JSON (the other tests parse it properly).
enum KeyOrder {
    /// Each object's keys (their raw bytes between the quotes), objects in order of their `}`; `nil`
    /// when the brackets do not balance.
    static func keysOfEveryObject(in bytes: [UInt8]) -> [[[UInt8]]]? {
        enum Container {
            case object(keys: [[UInt8]], expectingKey: Bool)
            case array
        }
        var open: [Container] = []
        var finished: [[[UInt8]]] = []
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "{"):
                open.append(.object(keys: [], expectingKey: true))
            case UInt8(ascii: "["):
                open.append(.array)
            case UInt8(ascii: "}"):
                guard case .object(let keys, _) = open.popLast() else { return nil }
                finished.append(keys)
            case UInt8(ascii: "]"):
                guard case .array = open.popLast() else { return nil }
            case UInt8(ascii: ","):
                if case .object(let keys, _) = open.last {
                    open[open.count - 1] = .object(keys: keys, expectingKey: true)
                }
            case UInt8(ascii: "\""):
                var text: [UInt8] = []
                while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                    if bytes[position] == UInt8(ascii: "\\") {
                        text.append(bytes[position])
                        position += 1
                    }
                    text.append(bytes[position])
                    position += 1
                }
                position += 1
                if case .object(var keys, true) = open.last {
                    keys.append(text)
                    open[open.count - 1] = .object(keys: keys, expectingKey: false)
                }
            default:
                break
            }
        }
        return open.isEmpty ? finished : nil
    }
}
