import LeakGraphModel
import LeakGraphReport

/// Which library a walk diagnostic is about, by the module rules of ``LeakGraphReport/ReportNaming``
/// (`ReportNaming+Libraries.swift` in `LeakGraphReport`): the text and HTML reports show a library's
/// diagnostics as one line.
extension ReportNaming {
    /// The library a walk diagnostic is about — its type's modules are all libraries, or (a closure
    /// context or box, whose type names no module) the function that made one is a library's — as
    /// the name it is shown with (`Foundation`, `XCTest`); `nil` when it concerns the checked program
    /// or cannot be told.
    public static func library(of diagnostic: WalkDiagnostic) -> String? {
        let modules = modules(inTypeName: diagnostic.typeName)
        if !modules.isEmpty {
            let libraries = modules.map { libraryModules[$0] }
            guard libraries.allSatisfy({ $0 != nil }) else { return nil }
            return libraries.first ?? nil
        }
        guard diagnostic.typeName.hasPrefix("(closure context") || diagnostic.typeName.hasPrefix("(box"),
            let site = diagnostic.site
        else { return nil }
        let function = siteFunction(site)
        return module(ofFunction: function).flatMap { libraryModules[$0] }
    }

    /// The function of a diagnostic's site (`main.swift:12 in f()` → `f()`; a site without a place is
    /// the function itself).
    static func siteFunction(_ site: String) -> String {
        if let range = site.firstRange(of: " in "), !site[..<range.lowerBound].contains(" "),
            site[..<range.lowerBound].contains(":") || site[..<range.lowerBound].hasSuffix(".swift")
        {
            return String(site[range.upperBound...])
        }
        return site
    }
}
