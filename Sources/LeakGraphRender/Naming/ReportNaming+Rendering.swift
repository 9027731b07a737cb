import LeakGraphModel
import LeakGraphReport

/// The names only renderers write: generic arguments elided, a reference as text, where a cycle was
/// found, an orphan's line, the program and its command line. The names the report value itself uses
/// (shown types, the creation site, numbers) are ``LeakGraphReport/ReportNaming``'s own, in
/// `LeakGraphReport`.
extension ReportNaming {
    /// `OpenCombine.Publishers.Last<A, B>.(private).Inner<C>` → `OpenCombine.Publishers.Last<…>.(private).Inner<…>`:
    /// each outermost generic argument list written `<…>` (the `>` of a function type's `->` inside one
    /// does not close it), to name what types that differ only in their arguments share.
    public static func genericArgumentsElided(_ type: String) -> String {
        var result = ""
        var depth = 0
        var previous: Character?
        for character in type {
            defer { previous = character }
            switch character {
            case "<":
                if depth == 0 { result += "<…" }
                depth += 1
                continue
            case ">" where previous != "-" && depth > 0:
                depth -= 1
                if depth == 0 { result.append(">") }
                continue
            default:
                break
            }
            if depth == 0 { result.append(character) }
        }
        return result
    }

    // MARK: References

    /// `DummyObject.next`, or `Array[2]` when the path starts with a subscript: a reference as its source's
    /// shown type followed by its path's text (``LeakGraphModel/ReferencePath/text``).
    public static func referenceText(type: String, path: ReferencePath) -> String {
        path.startsWithSubscript ? type + path.text : type + "." + path.text
    }

    // MARK: Where a cycle was found

    /// Where a root cycle was found, in one sentence without a final period: the tests that made it and
    /// the run (`Found in RoomTests.testJoin (XCTest run)`, `Made outside any test (XCTest run)`), the
    /// run alone when tests were not observed (`Found in the Swift Testing run`), or `nil` when the
    /// report knows neither.
    public static func foundIn(_ cycle: LeakReport.Cycle) -> String? {
        let run = cycle.run.map { " (\($0) run)" } ?? ""
        guard let tests = cycle.tests else {
            return cycle.run.map { "Found in the \($0) run" }
        }
        guard !tests.isEmpty else { return "Made outside any test" + run }
        return "Found in " + list(tests) + run
    }

    /// Where the root cycles of one family were found: every test that made one, by run
    /// (`Found in A and B (XCTest run) and C() (Swift Testing run)`), with `outside any test` when some
    /// were made outside tests; the runs alone when tests were not observed; `nil` when the report
    /// knows neither.
    public static func foundIn(_ cycles: [LeakReport.Cycle]) -> String? {
        guard cycles.count > 1 else { return cycles.first.flatMap(foundIn) }
        var runs: [String?] = []
        var testsOfRun: [String?: [String]] = [:]
        var outsideTests = false
        var observed = false
        for cycle in cycles {
            if !runs.contains(cycle.run) { runs.append(cycle.run) }
            guard let tests = cycle.tests else { continue }
            observed = true
            if tests.isEmpty { outsideTests = true }
            for test in tests where testsOfRun[cycle.run, default: []].contains(test) == false {
                testsOfRun[cycle.run, default: []].append(test)
            }
        }
        guard observed else {
            let named = runs.compactMap { $0 }
            return named.isEmpty ? nil : "Found in the " + list(named) + (named.count == 1 ? " run" : " runs")
        }
        var parts: [String] = []
        for run in runs {
            guard let tests = testsOfRun[run], !tests.isEmpty else { continue }
            parts.append(list(tests, limit: 8) + (run.map { " (\($0) run)" } ?? ""))
        }
        if outsideTests { parts.append("outside any test") }
        return (parts.first == "outside any test" ? "Made " : "Found in ") + list(parts, limit: parts.count)
    }

    /// The line an orphan's root group is explained with: `Cache retained 1 time, referenced from
    /// nowhere` — its retains no memory of the process accounts for (the holder scan found no word
    /// that could point at it).
    public static func orphanText(_ leak: LeakReport.Leak) -> String {
        let explained = leak.proof?.inEdges.count ?? 0
        let orphaned = max(leak.retainCount - explained, 0)
        let times = count(orphaned, "time")
        let more = explained > 0 ? " (and by \(count(explained, "reference")) from leaked objects)" : ""
        return "\(shortName(leak.type)) retained \(times), referenced from nowhere\(more)"
    }

    // MARK: The program

    /// The program's file name (its path without the directory), `?` when the path is empty.
    public static func programName(_ program: LeakReport.Program) -> String {
        let path = program.path
        return path.split(separator: "/").last.map(String.init) ?? (path.isEmpty ? "?" : path)
    }

    /// The command line as a shell would read it: the path and the arguments, each ``shellQuoted(_:)``
    /// (the path as it is).
    public static func commandLine(_ program: LeakReport.Program) -> String {
        ([program.path] + program.arguments.map(shellQuoted)).joined(separator: " ")
    }

    /// `argument` unchanged when it is plain (letters, digits and `-_./=:,+@%`); otherwise in single
    /// quotes, a quote inside written `'\''`.
    public static func shellQuoted(_ argument: String) -> String {
        let plain =
            !argument.isEmpty
            && argument.allSatisfy {
                $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)
            }
        return plain ? argument : "'" + argument.replacing("'", with: "'\\''") + "'"
    }
}
