import LeakGraphModel
import LeakGraphReport

/// The walk's diagnostics at the end of the text: what could not be read exactly.
///
/// Diagnostics about the checked program's objects are listed one line per kind: the diagnostics whose
/// types differ only in their generic arguments and that give one reason are one line, the type written
/// with `<…>` for its arguments (`Publishers.Last<…>.(private).Inner<…>: reduce: field type is not
/// Copyable (9 objects of 6 types; …)`); `verbose` lists each. Those about the objects of the Swift
/// runtime, Foundation, Dispatch and the test libraries (``ReportNaming/library(of:)``), which the
/// reader cannot change, are counted in one line unless `verbose`:
///
/// ```
/// Not read exactly: 15 objects of Foundation and XCTest internals could not be read; what they reach counts as held (--verbose lists them).
/// ```
extension TextRenderer {
    mutating func renderDiagnostics(verbose: Bool) {
        guard !report.diagnostics.isEmpty else { return }
        var own: [WalkDiagnostic] = []
        var libraryObjects = 0
        var libraries: [String] = []
        for diagnostic in report.diagnostics {
            if !verbose, let library = ReportNaming.library(of: diagnostic) {
                libraryObjects += diagnostic.objectCount
                if !libraries.contains(library) { libraries.append(library) }
            } else {
                own.append(diagnostic)
            }
        }
        let order = ["the Swift runtime", "Foundation", "Dispatch", "XCTest", "Swift Testing"]
        libraries.sort { (order.firstIndex(of: $0) ?? order.count) < (order.firstIndex(of: $1) ?? order.count) }
        let libraryText = "\(ReportNaming.count(libraryObjects, "object")) of \(ReportNaming.list(libraries)) internals"
        lines.append("")
        guard !own.isEmpty else {
            lines.append(
                "Not read exactly: \(libraryText) could not be read; what they reach counts as held (--verbose lists them)."
            )
            return
        }
        let objects = own.reduce(0) { $0 + $1.objectCount }
        lines.append(
            "Not read exactly: references of \(ReportNaming.count(objects, "object")) could not be read; "
                + "the objects they reach were treated as held (a leak there can be missed):"
        )
        for kind in Self.kinds(of: own, verbose: verbose) {
            let first = kind.diagnostics[0]
            var objects = ReportNaming.count(kind.objectCount, "object")
            if kind.types > 1 { objects += " of \(kind.types) types" }
            let site = first.site.map { "; one made at \($0)" } ?? ""
            lines.append("   \(kind.types > 1 ? kind.pattern : first.typeName): \(first.reason) (\(objects)\(site))")
        }
        if libraryObjects > 0 {
            lines.append("   and \(libraryText), which count as held too (--verbose lists them)")
        }
    }

    /// Diagnostics of one kind: one reason, types that differ only in their generic arguments.
    struct DiagnosticKind {
        /// The type name with each generic argument list written `<…>`.
        var pattern: String
        /// The diagnostics, in report order.
        var diagnostics: [WalkDiagnostic]
        var objectCount: Int { diagnostics.reduce(0) { $0 + $1.objectCount } }
        /// How many distinct type names.
        var types: Int { Set(diagnostics.map(\.typeName)).count }
    }

    /// `diagnostics` by kind, the kinds with the most objects first (report order among equals); with
    /// `verbose`, one kind per diagnostic, in report order.
    static func kinds(of diagnostics: [WalkDiagnostic], verbose: Bool) -> [DiagnosticKind] {
        if verbose {
            return diagnostics.map { DiagnosticKind(pattern: $0.typeName, diagnostics: [$0]) }
        }
        var kinds: [DiagnosticKind] = []
        var index: [String: Int] = [:]
        for diagnostic in diagnostics {
            let pattern = ReportNaming.genericArgumentsElided(diagnostic.typeName)
            let key = pattern + "\u{0}" + diagnostic.reason
            if let at = index[key] {
                kinds[at].diagnostics.append(diagnostic)
            } else {
                index[key] = kinds.count
                kinds.append(DiagnosticKind(pattern: pattern, diagnostics: [diagnostic]))
            }
        }
        return kinds.enumerated()
            .sorted {
                $0.element.objectCount != $1.element.objectCount
                    ? $0.element.objectCount > $1.element.objectCount : $0.offset < $1.offset
            }
            .map(\.element)
    }
}
