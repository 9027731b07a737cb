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
        #expect(Set(object.keys) == ["schemaVersion", "program", "summary", "leaks", "references", "cycles", "diagnostics"])
        #expect(object["schemaVersion"] as? Int == 1)
        let leaks = try #require(object["leaks"] as? [[String: Any]])
        #expect(leaks[0]["cycle"] is NSNull)
        #expect(leaks[1]["cycle"] as? Int == 0)
        #expect(leaks[0]["address"] as? String == "0x5555aa001000")
        #expect(leaks[0]["kind"] as? String == "class")
        #expect(leaks[0]["proof"] == nil)
        let frame = try #require((leaks[10]["backtrace"] as? [[String: Any]])?.first)
        #expect(frame["file"] is NSNull)
        #expect(frame["line"] is NSNull)
        let references = try #require(object["references"] as? [[String: Any]])
        #expect(references.last?["ownership"] as? String == "strong")
        #expect(text.contains("\"path\" : \"/work/build/LinkedRing\""))
        // Sorted keys: "cycles" comes first.
        let firstLines = text.split(separator: "\n").prefix(2).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(firstLines == ["{", "\"cycles\" : ["])
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
        #expect(error.message.contains("schema versions 1 through 1"))
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
