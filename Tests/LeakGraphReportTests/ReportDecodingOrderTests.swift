import Foundation
import LeakGraphReport
import Testing

/// `LeakReport.decode(from:)` decodes the whole report first and reads the header only to explain a
/// failure; these cases pin that each outcome keeps the code it had when the header was read first.
@Suite("JSON report decoding: one pass, same error codes")
struct ReportDecodingOrderTests {
    /// The error `decode(from:)` throws for `object` serialized, or `nil` when it decodes.
    private func error(decoding object: [String: Any]) throws -> ReportDecodingError? {
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try LeakReport.decode(from: data)
            return nil
        } catch {
            return error
        }
    }

    private func reportObject(version: Int) throws -> [String: Any] {
        var report = ReportFixtures.leakingReport
        report.schemaVersion = version
        return try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
    }

    @Test("a complete report of an unsupported version is refused for its version, not read")
    func completeButUnsupported() throws {
        for version in [0, -1, 3, 99] {
            let refused = try #require(try error(decoding: reportObject(version: version)), "\(version)")
            #expect(refused.code == .unsupportedSchemaVersion, "\(version)")
            #expect(refused.message.contains("schema version \(version),"), "\(version)")
        }
    }

    @Test("an incomplete report of an unsupported version is refused for its version, not its fields")
    func incompleteAndUnsupported() throws {
        var object = try reportObject(version: 3)
        object["leaks"] = nil
        #expect(try error(decoding: object)?.code == .unsupportedSchemaVersion)
    }

    @Test("a supported version with a mistyped field is invalid, naming the field")
    func mistyped() throws {
        var object = try reportObject(version: 2)
        var program = try #require(object["program"] as? [String: Any])
        program["exitStatus"] = "zero"
        object["program"] = program
        let invalid = try #require(try error(decoding: object))
        #expect(invalid.code == .invalidReport)
        #expect(invalid.message.contains("schema version 2 but does not match it: program.exitStatus has the wrong type"))
    }

    @Test("a schemaVersion that is not an integer is not a leak report, even with every other field")
    func stringVersion() throws {
        var object = try reportObject(version: 2)
        object["schemaVersion"] = "2"
        #expect(try error(decoding: object)?.code == .notALeakReport)
    }
}
