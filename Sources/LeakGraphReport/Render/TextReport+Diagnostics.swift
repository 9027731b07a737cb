import LeakGraphModel

/// The walk's diagnostics at the end of the text: what could not be read exactly.
///
/// Diagnostics about the checked program's objects are listed one per line; those about the objects
/// of the Swift runtime, Foundation, Dispatch and the test libraries (``ReportNaming/library(of:)``),
/// which the reader cannot change, are counted in one line unless `verbose`:
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
                "Not read exactly: \(libraryText) could not be read; what they reach counts as held (--verbose lists them).")
            return
        }
        let objects = own.reduce(0) { $0 + $1.objectCount }
        lines.append(
            "Not read exactly: references of \(ReportNaming.count(objects, "object")) could not be read; "
                + "the objects they reach were treated as held (a leak there can be missed):"
        )
        for diagnostic in own {
            let objects = ReportNaming.count(diagnostic.objectCount, "object")
            let site = diagnostic.site.map { "; one made at \($0)" } ?? ""
            lines.append("   \(diagnostic.typeName): \(diagnostic.reason) (\(objects)\(site))")
        }
        if libraryObjects > 0 {
            lines.append("   and \(libraryText), which count as held too (--verbose lists them)")
        }
    }
}
