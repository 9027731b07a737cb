import LeakGraphReport

/// The report as JUnit XML, the test-report format CI systems read (Jenkins, GitLab, GitHub test
/// reporters): one test case per leak family.
///
/// ```xml
/// <testsuites name="LeakGraph" tests="3" failures="1" errors="0" skipped="1">
///   <testsuite name="leaks in LeakCheckedPackagePackageTests.xctest" tests="3" failures="1" errors="0" skipped="1">
///     <properties>…the command, its verdict and exit status…</properties>
///     <testcase classname="leakgraph.RoomTests.testMembersKnowTheirRoom" name="Room.members[1] → Member.room → Room" file="…/Room.swift" line="22">
///       <failure type="leak" message="2 root cycles, 8 objects, 370 bytes leaked. Suspect: Member.room — … Fix: make it `weak var room`.">the family's text section</failure>
///     </testcase>
///     <testcase classname="leakgraph.known-library-leaks" name="XCTestSuite.testRun → XCTestSuiteRun.test → XCTestSuite">
///       <skipped message="known leak in swift-corelibs-xctest: …"/>
///     </testcase>
///   </testsuite>
/// </testsuites>
/// ```
///
/// - The checked code's own families **fail** (`<failure type="leak">`: the counts, the suspect and its
///   fix in `message`, the leak trace, creation sites and tests in the text); known library leaks and
///   families a baseline accepts are **skipped** with the reason. A report without a family of the
///   code's own has one passing case, `no leaks`, so a CI system shows the check ran.
/// - `classname` is `leakgraph.` and the first test that made the family (or its run, or the
///   program), so a CI system groups the leak with the test; `file` and `line` point where the
///   suspect's holder was made (``LeakReport/Finding/location``).
/// - A crashed program is one `<error>` case.
///
/// The layout is held to a schema in the tests (`Tests/LeakGraphReportTests/Schemas/junit.xsd`,
/// checked with xmllint).
public enum JUnitReport {
    /// The report as a JUnit XML document (UTF-8 text, ending with a newline).
    public static func render(_ report: LeakReport, context: RenderContext = RenderContext()) -> String {
        let program = ReportNaming.programName(report.program)
        var cases: [String] = []
        var failures = 0
        var skipped = 0
        var errors = 0
        if let crash = report.crash {
            errors = 1
            cases.append(
                "    <testcase classname=\"leakgraph.\(x(program))\" name=\"leak check\">\n"
                    + "      <error type=\"crash\" message=\"\(x("the program crashed with \(crash.signal); no leak check ran"))\">"
                    + x(TextReport.crashed(program: report.program, crash: crash)) + "</error>\n    </testcase>")
        } else {
            for finding in report.findings {
                let first = finding.tests.first ?? report.cycles[finding.family.representative].run ?? program
                var attributes =
                    "classname=\"\(x("leakgraph." + (finding.family.standing == .knownLibraryLeak ? "known-library-leaks" : first)))\""
                attributes += " name=\"\(x(finding.trace))\""
                if let location = finding.location {
                    attributes += " file=\"\(x(location.file))\" line=\"\(location.line)\""
                }
                var body = "    <testcase \(attributes)>\n"
                switch finding.family.standing {
                case .own:
                    failures += 1
                    body +=
                        "      <failure type=\"leak\" message=\"\(x(message(finding)))\">\(x(finding.section))</failure>\n"
                case .suppressed, .knownLibraryLeak:
                    skipped += 1
                    body += "      <skipped message=\"\(x(finding.excuse ?? "not failing the check"))\"/>\n"
                }
                if let foundIn = finding.foundIn {
                    body += "      <system-out>\(x(foundIn + "."))</system-out>\n"
                }
                cases.append(body + "    </testcase>")
            }
            if failures == 0 {
                cases.insert(
                    "    <testcase classname=\"leakgraph.\(x(program))\" name=\"no leaks\"/>", at: 0)
            }
        }
        let tests = cases.count
        let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\""
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuites name=\"LeakGraph\" \(counts)>",
            "  <testsuite name=\"\(x("leaks in " + program))\" \(counts)>",
            "    <properties>",
            "      <property name=\"program\" value=\"\(x(ReportNaming.commandLine(report.program)))\"/>",
            "      <property name=\"verdict\" value=\"\(report.verdict.rawValue)\"/>",
        ]
        if let command = context.command {
            lines.append("      <property name=\"command\" value=\"\(x(command))\"/>")
        }
        if let verdict = context.verdict {
            lines.append("      <property name=\"result\" value=\"\(x(verdict))\"/>")
        }
        if let exitStatus = context.exitStatus {
            lines.append("      <property name=\"exitStatus\" value=\"\(exitStatus)\"/>")
        }
        lines.append("    </properties>")
        lines += cases
        lines += ["  </testsuite>", "</testsuites>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The failure's one-line message: the counts, the suspect and its fix.
    static func message(_ finding: LeakReport.Finding) -> String {
        let family = finding.family
        var text =
            "\(ReportNaming.count(family.cycles.count, "root cycle")), \(ReportNaming.count(family.objects, "object")), "
            + "\(ReportNaming.count(family.bytes, "byte")) leaked (\(finding.leakedTypes.map(ReportNaming.shortName).joined(separator: ", ")))."
        if let suspect = finding.suspect, let reason = finding.reason, let fix = finding.fix {
            text += " Suspect: \(suspect) — \(reason) Fix: \(fix)"
        }
        return text
    }

    /// `text` escaped for XML attribute values and character data; characters XML 1.0 cannot hold
    /// (controls other than tab, line feed and carriage return) become `?`.
    static func x(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value)
                    || (0xD800...0xDFFF).contains(scalar.value)
                {
                    result += "?"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
