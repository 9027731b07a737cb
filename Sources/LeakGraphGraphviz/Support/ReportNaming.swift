import LeakGraphReport

/// Names, creation sites and numbers as LeakGraph's renderers show them (the same rules as `TextReport`).
enum ReportNaming {
    /// Full type name → shown name: without the leading module (`LinkedRing.DummyObject` → `DummyObject`)
    /// unless another leaked type would then read the same; such types keep their full names.
    static func displayNames(for types: [String]) -> [String: String] {
        var byShort: [String: Set<String>] = [:]
        for type in Set(types) {
            byShort[shortName(type), default: []].insert(type)
        }
        var result: [String: String] = [:]
        for (short, fulls) in byShort {
            for full in fulls {
                result[full] = fulls.count == 1 ? short : full
            }
        }
        return result
    }

    /// `MyApp.Node<Swift.Int>` → `Node<Swift.Int>`: drops a leading identifier and dot that come before
    /// any generic argument list or other punctuation. Other names are returned unchanged.
    static func shortName(_ type: String) -> String {
        guard let dot = type.firstIndex(of: ".") else { return type }
        let module = type[..<dot]
        let isIdentifier = !module.isEmpty && module.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            && !(module.first?.isNumber ?? true)
        let rest = type[type.index(after: dot)...]
        return isIdentifier && !rest.isEmpty ? String(rest) : type
    }

    /// Where an object was created.
    struct CreationSite: Hashable {
        /// `main.swift:12` (file name without its directory), `main.swift`, or `nil` when no frame has a file.
        var place: String?
        /// The frame's function.
        var function: String

        /// `main.swift:12 in makeRing()`, or the function alone.
        var text: String {
            place.map { "\($0) in \(function)" } ?? function
        }
    }

    /// The creation site of a backtrace: the first frame with a source file and a line that is not
    /// compiler-generated (an `__allocating_init` or a thunk, which only allocate or forward), else the
    /// first frame with a file, else the first frame; `nil` for an empty backtrace.
    static func creationSite(_ backtrace: [LeakReport.Frame]) -> CreationSite? {
        let placed = backtrace.first { $0.file != nil && $0.line != nil && !isCompilerGenerated($0.function) }
        guard let frame = placed ?? backtrace.first(where: { $0.file != nil }) ?? backtrace.first else {
            return nil
        }
        guard let file = frame.file else { return CreationSite(place: nil, function: frame.function) }
        return CreationSite(place: place(file: file, line: frame.line), function: frame.function)
    }

    /// Remembers the creation site of the last backtrace asked for: objects made at one place have equal
    /// backtraces, one after the other, and comparing frames is cheaper than finding the site again.
    struct CreationSiteCache {
        private var last: [LeakReport.Frame]?
        private var lastSite: CreationSite?

        /// ``ReportNaming/creationSite(_:)`` of `backtrace`.
        mutating func site(_ backtrace: [LeakReport.Frame]) -> CreationSite? {
            if let last, last == backtrace {
                return lastSite
            }
            last = backtrace
            lastSite = ReportNaming.creationSite(backtrace)
            return lastSite
        }
    }

    /// `main.swift:12` from `/src/main.swift` and 12.
    static func place(file: String, line: Int?) -> String {
        let fileName = file.split(separator: "/").last.map(String.init) ?? file
        return line.map { "\(fileName):\($0)" } ?? fileName
    }

    /// Whether a demangled function name is a class's allocating initializer or a thunk.
    static func isCompilerGenerated(_ function: String) -> Bool {
        function.contains("__allocating_init") || compilerGeneratedPrefixes.contains { function.hasPrefix($0) }
    }

    static let compilerGeneratedPrefixes = [
        "reabstraction thunk", "thunk for ", "dispatch thunk of ", "vtable thunk for ", "protocol witness for ",
        "partial apply forwarder for ", "@objc ", "@nonobjc ", "autoclosure thunk",
    ]

    /// `12,345`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// `1 object`, `12 objects`, `1,024 bytes`.
    static func count(_ value: Int, _ noun: String) -> String {
        "\(grouped(value)) \(noun)\(value == 1 ? "" : "s")"
    }

    /// The program's file name, `?` when the path is empty.
    static func programName(_ report: LeakReport) -> String {
        let path = report.program.path
        return path.split(separator: "/").last.map(String.init) ?? (path.isEmpty ? "?" : path)
    }
}
