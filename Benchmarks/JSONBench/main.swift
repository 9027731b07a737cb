// Times writing and reading a large JSON report side by side in one run: Foundation's JSONEncoder on the
// report's Codable conformance against LeakGraph's own writer (`LeakReport.jsonData`), and JSONDecoder
// reading both layouts. Built and run by scripts/bench-json; not part of the package build.
//
//   JSONBench [leaks] [rounds]     defaults: 100000 leaks in one ring, 3 rounds; median times printed
import Foundation
import LeakGraphModel
import LeakGraphReport

let leakCount = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000
let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 3 : 3

/// A ring of `count` leaked objects made at one site: one 16-frame backtrace shared by every leak, one
/// `next` reference per object, one root cycle holding all of them.
func syntheticReport(count: Int) -> LeakReport {
    let site = (0..<16).map { depth in
        LeakReport.Frame(
            function: "RingApp.Node.makeRing(count: Swift.Int, depth: Swift.Int) -> RingApp.Node [frame \(depth)]",
            file: depth % 4 == 3 ? nil : "/src/RingApp/Sources/RingApp/Node+Ring\(depth).swift",
            line: depth % 4 == 3 ? nil : 10 + depth)
    }
    let leaks = (0..<count).map { id in
        LeakReport.Leak(
            id: id, address: LeakReport.hexAddress(0x5555_aa00_0000 + 0x30 * UInt64(id)), type: "RingApp.Node",
            kind: "class", size: 48, retainCount: 1, cycle: 0, backtrace: site,
            proof: .init(retainCount: 1, inEdges: [(id + count - 1) % count]))
    }
    let references = (0..<count).map { id in
        LeakReport.LeakReference(
            from: id, to: (id + 1) % count, path: [.property("next"), .optionalPayload], ownership: .strong)
    }
    let cycle = LeakReport.Cycle(
        id: 0, members: Array(0..<count), holds: [], heldCycles: [], fingerprint: "lg1-5f3c2a9e",
        suspect: .init(
            reference: count - 1, from: count - 1, to: 0, label: "next", reason: "it closes the ring",
            hint: "make it weak var next"))
    return LeakReport(
        program: .init(path: "/work/build/RingApp", arguments: ["--count", "\(count)"], exitStatus: 0),
        summary: .init(
            trackedObjects: count * 11, liveObjects: count * 10, leakedObjects: count, leakedBytes: 48 * count,
            rootCycles: 1),
        leaks: leaks, references: references, cycles: [cycle],
        diagnostics: [WalkDiagnostic(typeName: "Foundation.NSCache", reason: "layout not read yet", objectCount: 2)])
}

/// Only the schema version: what a reader that checks it first decodes before the report.
struct Header: Decodable {
    var schemaVersion: Int
}

/// The median of `rounds` timings of `body`, in seconds, and its last result.
func time<T>(_ body: () throws -> T) rethrows -> (seconds: Double, result: T) {
    var samples: [Double] = []
    var result: T?
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        result = try body()
        let elapsed = ContinuousClock.now - start
        samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    samples.sort()
    return (samples[samples.count / 2], result!)
}

func encoder(prettyPrinted: Bool) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if prettyPrinted { encoder.outputFormatting.insert(.prettyPrinted) }
    return encoder
}

func format(_ seconds: Double) -> String { String(format: "%8.3f s", seconds) }
func megabytes(_ count: Int) -> String { String(format: "%6.1f MB", Double(count) / 1_000_000) }

let report = syntheticReport(count: leakCount)
print("JSONBench: \(leakCount) leaks in one ring, 16-frame backtrace shared by all; median of \(rounds) rounds")
print("")
print("writing          JSONEncoder      writer   ratio     size  identical")
var documents: [Bool: Data] = [:]
for pretty in [false, true] {
    let encoded = try time { try encoder(prettyPrinted: pretty).encode(report) }
    let written = try time { try report.jsonData(prettyPrinted: pretty) }
    documents[pretty] = written.result
    print(
        "\(pretty ? "pretty " : "compact")        \(format(encoded.seconds))  \(format(written.seconds))  \(String(format: "%5.1fx", encoded.seconds / written.seconds))  \(megabytes(written.result.count))  \(encoded.result == written.result ? "bytes" : "NO")"
    )
}
print("")
print("reading (JSONDecoder)       compact      pretty   pretty/compact")
var rows: [(String, [Double])] = []
var header: [Double] = []
var full: [Double] = []
var reused: [Double] = []
var decode: [Double] = []
let sharedDecoder = JSONDecoder()
for pretty in [false, true] {
    let data = documents[pretty]!
    header.append(try time { try JSONDecoder().decode(Header.self, from: data) }.seconds)
    full.append(try time { try JSONDecoder().decode(LeakReport.self, from: data) }.seconds)
    reused.append(try time { try sharedDecoder.decode(LeakReport.self, from: data) }.seconds)
    let decoded = try time { try LeakReport.decode(from: data) }
    guard decoded.result == report else { fatalError("the decoded report differs") }
    decode.append(decoded.seconds)
}
for (name, pair) in [
    ("header only", header), ("LeakReport only", full), ("  decoder reused", reused), ("LeakReport.decode", decode),
] {
    print(
        "\(name.padding(toLength: 20, withPad: " ", startingAt: 0))  \(format(pair[0]))  \(format(pair[1]))   \(String(format: "%5.2fx", pair[1] / pair[0]))"
    )
}
print("")
print("header only: JSONDecoder for a one-field type (it still parses the whole document).")
print("LeakReport only: one JSONDecoder pass for the report (a new decoder each time, or one reused);")
print("LeakReport.decode is what the CLI calls.")
