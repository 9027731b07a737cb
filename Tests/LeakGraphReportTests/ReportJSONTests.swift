import Foundation
import LeakGraphReport
import Testing

/// The error `LeakReport.decode(from:)` throws for `data`, or `nil` when it decodes.
private func decodingError(_ data: Data) -> ReportDecodingError? {
    do {
        _ = try LeakReport.decode(from: data)
        return nil
    } catch {
        return error
    }
}

@Suite("JSON report")
struct ReportJSONTests {
    @Test("a report survives a JSON round trip", arguments: [true, false])
    func roundTrip(prettyPrinted: Bool) throws {
        var report = ReportFixtures.leakingReport
        report.leaks[0].proof = .init(retainCount: 1, inEdges: [9])
        report.leaks[1].cycle = nil
        let data = try report.jsonData(prettyPrinted: prettyPrinted)
        let decoded = try LeakReport.decode(from: data)
        #expect(decoded == report)
    }

    @Test("the JSON has the schema's fields, sorted keys, and explicit nulls")
    func shape() throws {
        var report = ReportFixtures.leakingReport
        report.leaks[0].cycle = nil
        let data = try report.jsonData(prettyPrinted: true)
        let text = try #require(String(data: data, encoding: .utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["schemaVersion", "program", "summary", "leaks", "references", "cycles", "diagnostics", "stacks", "verdict"])
        #expect(object["schemaVersion"] as? Int == 2)
        #expect(object["verdict"] as? String == "leaksFound")
        let leaks = try #require(object["leaks"] as? [[String: Any]])
        #expect(leaks[0]["cycle"] is NSNull)
        #expect(leaks[1]["cycle"] as? Int == 0)
        #expect(leaks[0]["address"] as? String == "0x5555aa001000")
        #expect(leaks[0]["kind"] as? String == "class")
        #expect(leaks[0]["proof"] == nil)
        #expect(leaks[10]["backtrace"] == nil)
        let stacks = try #require(object["stacks"] as? [[[String: Any]]])
        let stack = try #require(leaks[10]["stack"] as? Int)
        let frame = try #require(stacks[stack].first)
        #expect(frame["file"] is NSNull)
        #expect(frame["line"] is NSNull)
        let references = try #require(object["references"] as? [[String: Any]])
        #expect(references.last?["ownership"] as? String == "strong")
        #expect(text.contains("\"path\" : \"/work/build/LinkedRing\""))
        // Sorted keys: "cycles" comes first.
        let firstLines = text.split(separator: "\n").prefix(2).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(firstLines == ["{", "\"cycles\" : ["])
    }

    @Test("version 2 writes each distinct backtrace once; version 1 reports are still read")
    func stackTable() throws {
        var report = ReportFixtures.leakingReport
        let site = [LeakReport.Frame(function: "App.make() -> ()", file: "/src/main.swift", line: 3)]
        for index in report.leaks.indices { report.leaks[index].backtrace = index % 2 == 0 ? site : [] }
        report.leaks[1].backtrace = [LeakReport.Frame(function: "main", file: nil, line: nil)]
        let data = try report.jsonData(prettyPrinted: false)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let stacks = try #require(object["stacks"] as? [[[String: Any]]])
        #expect(stacks.count == 2)
        let leaks = try #require(object["leaks"] as? [[String: Any]])
        #expect(leaks[0]["stack"] as? Int == 0 && leaks[2]["stack"] as? Int == 0 && leaks[1]["stack"] as? Int == 1)
        #expect(leaks[3]["stack"] is NSNull)
        #expect(try LeakReport.decode(from: data) == report)

        var old = report
        old.schemaVersion = 1
        let oldData = try old.jsonData(prettyPrinted: false)
        let oldObject = try #require(try JSONSerialization.jsonObject(with: oldData) as? [String: Any])
        #expect(oldObject["stacks"] == nil)
        #expect(((oldObject["leaks"] as? [[String: Any]])?[0]["backtrace"] as? [Any])?.count == 1)
        #expect(try LeakReport.decode(from: oldData) == old)
    }

    @Test("a stack index outside the table is an invalid report")
    func danglingStack() throws {
        let data = try ReportFixtures.leakingReport.jsonData()
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var leaks = try #require(object["leaks"] as? [[String: Any]])
        leaks[0]["stack"] = 99
        object["leaks"] = leaks
        let error = try #require(decodingError(try JSONSerialization.data(withJSONObject: object)))
        #expect(error.code == .invalidReport)
    }

    @Test("damaged JSON is reported as damaged")
    func damaged() throws {
        let data = try ReportFixtures.leakingReport.jsonData()
        for broken in [Data(data.prefix(data.count / 2)), Data("not json".utf8), Data(), Data([0xff, 0xfe, 0x00])] {
            let error = try #require(decodingError(broken))
            #expect(error.code == .damagedJSON)
            #expect(error.message.hasPrefix("The file is not valid JSON"))
        }
    }

    @Test("JSON of another shape is not a leak report")
    func otherShape() throws {
        for json in [#"{"name": "package", "version": "1.0"}"#, "[1, 2, 3]", #"{"schemaVersion": "1"}"#, "42"] {
            let error = try #require(decodingError(Data(json.utf8)), "\(json)")
            #expect(error.code == .notALeakReport, "\(json)")
            #expect(error.message.contains("not a LeakGraph report"))
        }
    }

    @Test("a newer schema version is refused with a message naming both versions")
    func newerSchema() throws {
        var report = ReportFixtures.leakingReport
        report.schemaVersion = 99
        let error = try #require(decodingError(try report.jsonData()))
        #expect(error.code == .unsupportedSchemaVersion)
        #expect(error.message.contains("schema version 99, written by a newer LeakGraph"))
        #expect(error.message.contains("schema versions 1 through 2"))
        let zero = try #require(decodingError(Data(#"{"schemaVersion": 0}"#.utf8)))
        #expect(zero.code == .unsupportedSchemaVersion)
    }

    @Test("the right version with a missing field names the field")
    func invalidReport() throws {
        let data = try ReportFixtures.leakingReport.jsonData()
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var summary = try #require(object["summary"] as? [String: Any])
        summary["leakedBytes"] = nil
        object["summary"] = summary
        let error = try #require(decodingError(try JSONSerialization.data(withJSONObject: object)))
        #expect(error.code == .invalidReport)
        #expect(error.message.contains("missing field \"leakedBytes\" in summary"))

        let foreign = try #require(decodingError(Data(#"{"schemaVersion": 1, "items": []}"#.utf8)))
        #expect(foreign.code == .invalidReport)
    }
}
