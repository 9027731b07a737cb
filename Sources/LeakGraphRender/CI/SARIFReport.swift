import LeakGraphReport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The report as a SARIF 2.1.0 log (OASIS Static Analysis Results Interchange Format), which CI
/// systems turn into code annotations (GitHub code scanning, GitLab, Azure DevOps): one result per
/// leak family.
///
/// - One run of the tool `LeakGraph` with two rules: `LG1001` (a root cycle leaks objects) and `LG1002`
///   (an orphaned retain: an object retained from nowhere).
/// - A result per family (``LeakReport/families``): `level` `error` for the checked code's own, `note`
///   with a `suppressions` entry (kind `external`, the reason as its justification) for known library
///   leaks and families a baseline accepts. Its message names the leak trace, the leaked types, the
///   suspect with its fix and where it was found; its location is the source line where the suspect's
///   holder was made or its closure formed (``LeakReport/Finding/location``), relative to
///   `%SRCROOT%` (``RenderContext/sourceRoot``) when the file lies in it; the other members' creation
///   sites are `relatedLocations`. `partialFingerprints["leakGraph/v1"]` is the cycle's fingerprint, so
///   a code-scanning service tracks the same leak across runs.
/// - `invocations` holds the command line, its exit status and whether the check ran.
///
/// Tests validate the output against the SARIF 2.1.0 schema (docs/ci.md says how the schema is obtained).
public enum SARIFReport {
    /// The rule of a root cycle.
    public static let cycleRule = "LG1001"
    /// The rule of an orphaned retain.
    public static let orphanRule = "LG1002"

    /// The log as pretty-printed JSON, keys sorted.
    public static func render(_ report: LeakReport, context: RenderContext = RenderContext(), version: String? = nil)
        -> Data
    {
        let log = Log(report: report, context: context, version: version)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(log)) ?? Data("{}".utf8)
    }

    // MARK: The SARIF object model (the parts LeakGraph writes)

    struct Log: Encodable {
        var schema = "https://json.schemastore.org/sarif-2.1.0.json"
        var version = "2.1.0"
        var runs: [Run]

        enum CodingKeys: String, CodingKey {
            case schema = "$schema", version, runs
        }

        init(report: LeakReport, context: RenderContext, version: String?) {
            runs = [Run(report: report, context: context, version: version)]
        }
    }

    struct Message: Encodable {
        var text: String
    }

    struct Run: Encodable {
        var tool: Tool
        var results: [Result]
        var invocations: [Invocation]
        var originalUriBaseIds: [String: ArtifactLocation]?

        init(report: LeakReport, context: RenderContext, version: String?) {
            tool = Tool(driver: Driver(version: version))
            let root = context.sourceRoot.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
            originalUriBaseIds = root.map {
                ["SRCROOT": ArtifactLocation(uri: SARIFReport.fileURI($0), uriBaseId: nil)]
            }
            results = report.crash == nil ? report.findings.map { Result($0, report: report, root: root) } : []
            invocations = [
                Invocation(
                    executionSuccessful: report.crash == nil, exitCode: context.exitStatus.map(Int.init),
                    commandLine: context.command ?? ReportNaming.commandLine(report.program),
                    toolExecutionNotifications: report.crash.map {
                        [
                            Notification(
                                message: Message(text: "the program crashed with \($0.signal); no leak check ran"),
                                level: "error")
                        ]
                    })
            ]
        }
    }

    struct Tool: Encodable {
        var driver: Driver
    }

    struct Driver: Encodable {
        var name = "LeakGraph"
        var version: String?
        var rules: [Rule] = [
            Rule(
                id: SARIFReport.cycleRule, name: "RetainCycle",
                shortDescription: Message(text: "Objects leaked in a reference cycle that nothing can reach."),
                fullDescription: Message(
                    text:
                        "Every object of the cycle is retained only by the cycle's own strong references (or by objects it holds), "
                        + "so none of them is ever freed. Cut one reference of the ring: make it weak, or clear it when done."
                ),
                help: Message(text: "The suspect reference and its fix are in the result's message.")),
            Rule(
                id: SARIFReport.orphanRule, name: "OrphanedRetain",
                shortDescription: Message(
                    text: "An object retained from nowhere: a +1 retain whose pointer was dropped."),
                fullDescription: Message(
                    text:
                        "The object's retain count is higher than the references any memory of the process holds to it "
                        + "(an Unmanaged.passRetained pointer forgotten, a C context freed without its release)."),
                help: Message(text: "Balance the retain with a release, or keep the pointer where it can be released.")),
        ]
    }

    struct Rule: Encodable {
        var id: String
        var name: String
        var shortDescription: Message
        var fullDescription: Message
        var help: Message
        var defaultConfiguration = Configuration(level: "error")
    }

    struct Configuration: Encodable {
        var level: String
    }

    struct Result: Encodable {
        var ruleId: String
        var ruleIndex: Int
        var level: String
        var message: Message
        var locations: [Location]?
        var relatedLocations: [Location]?
        var partialFingerprints: [String: String]?
        var suppressions: [Suppression]?
        var properties: Properties

        init(_ finding: LeakReport.Finding, report: LeakReport, root: String?) {
            let cycle = report.cycles[finding.family.representative]
            ruleId = cycle.isOrphan ? SARIFReport.orphanRule : SARIFReport.cycleRule
            ruleIndex = cycle.isOrphan ? 1 : 0
            level = finding.family.standing == .own ? "error" : "note"
            let family = finding.family
            var text = cycle.isOrphan ? "Orphaned retain: " : "Retain cycle: "
            text +=
                "\(finding.trace) — \(ReportNaming.count(family.cycles.count, "root cycle")), "
                + "\(ReportNaming.count(family.objects, "object")), \(ReportNaming.count(family.bytes, "byte")) leaked "
                + "(\(finding.leakedTypes.map(ReportNaming.shortName).joined(separator: ", ")))."
            if let suspect = finding.suspect, let reason = finding.reason, let fix = finding.fix,
                family.standing != .knownLibraryLeak
            {
                text += " Suspect: \(suspect) — \(reason) Fix: \(fix)"
            }
            if let foundIn = finding.foundIn {
                text += " \(foundIn)."
            }
            if let excuse = finding.excuse {
                text += " Not failing: \(excuse)"
            }
            message = Message(text: text)
            locations = finding.location.map { [Location($0, root: root, id: nil)] }
            let related = finding.relatedLocations.enumerated().map { Location($1, root: root, id: $0 + 1) }
            relatedLocations = related.isEmpty ? nil : related
            partialFingerprints = family.fingerprint.map { ["leakGraph/v1": $0] }
            suppressions = finding.excuse.map { [Suppression(justification: $0)] }
            properties = Properties(
                rootCycles: family.cycles.count, objects: family.objects, bytes: family.bytes,
                leakedTypes: finding.leakedTypes,
                tests: finding.tests.isEmpty ? nil : finding.tests,
                cycles: family.cycles.map { report.cycles[$0].id })
        }
    }

    struct Location: Encodable {
        var id: Int?
        var physicalLocation: PhysicalLocation
        var message: Message?

        init(_ location: LeakReport.SourceLocation, root: String?, id: Int?) {
            self.id = id
            var artifact = ArtifactLocation(uri: SARIFReport.fileURI(location.file), uriBaseId: nil)
            if let root, location.file.hasPrefix(root) {
                artifact = ArtifactLocation(
                    uri: SARIFReport.relativeURI(String(location.file.dropFirst(root.count))), uriBaseId: "SRCROOT")
            }
            physicalLocation = PhysicalLocation(artifactLocation: artifact, region: Region(startLine: location.line))
            message = Message(text: "\(location.type) made here, in \(location.function)")
        }
    }

    struct PhysicalLocation: Encodable {
        var artifactLocation: ArtifactLocation
        var region: Region
    }

    struct ArtifactLocation: Encodable {
        var uri: String
        var uriBaseId: String?
    }

    struct Region: Encodable {
        var startLine: Int
    }

    struct Suppression: Encodable {
        var kind = "external"
        var justification: String
    }

    struct Properties: Encodable {
        var rootCycles: Int
        var objects: Int
        var bytes: Int
        var leakedTypes: [String]
        var tests: [String]?
        var cycles: [Int]
    }

    struct Invocation: Encodable {
        var executionSuccessful: Bool
        var exitCode: Int?
        var commandLine: String
        var toolExecutionNotifications: [Notification]?
    }

    struct Notification: Encodable {
        var message: Message
        var level: String
    }

    // MARK: URIs

    /// `file:///abs/path` for an absolute path (percent-encoded), the path as a relative URI otherwise.
    static func fileURI(_ path: String) -> String {
        path.hasPrefix("/") ? "file://" + percentEncoded(path) : relativeURI(path)
    }

    /// A relative path as a URI reference, each character outside the unreserved set and `/` percent-encoded.
    static func relativeURI(_ path: String) -> String {
        percentEncoded(path)
    }

    private static func percentEncoded(_ path: String) -> String {
        var result = ""
        for byte in path.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || "-._~/".contains(character) {
                result.append(character)
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
