import LeakGraphModel

/// The rules by which LeakGraph names what a report holds — shown type names, the creation site of a
/// backtrace (the one creation-site rule), type groups and numbers — used by the report value's own
/// texts (verdicts, budgets, baselines) and by every renderer, so that all of them read the same.
/// The names only renderers write (reference texts, the command line, where a cycle was found, store
/// sites, a diagnostic's library) are added by `LeakGraphRender`.
///
/// Every function is a pure function of its arguments.
public enum ReportNaming {
    // MARK: Type names

    /// Full type name → the name shown: without the leading module (`LinkedRing.DummyObject` →
    /// `DummyObject`, see ``shortName(_:)``) unless another of `types` would then read the same; such
    /// types keep their full names.
    ///
    /// - Parameter types: The full type names of the objects shown (repeats are allowed).
    /// - Returns: A name for every distinct element of `types`.
    /// - Complexity: O(*n*) for *n* names (hashing aside).
    public static func displayNames(for types: [String]) -> [String: String] {
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
    public static func shortName(_ type: String) -> String {
        guard let dot = type.firstIndex(of: ".") else { return type }
        let module = type[..<dot]
        let isIdentifier =
            !module.isEmpty && module.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            && !(module.first?.isNumber ?? true)
        let rest = type[type.index(after: dot)...]
        return isIdentifier && !rest.isEmpty ? String(rest) : type
    }

    // MARK: Creation sites

    /// Where an object was created: the frame ``ReportNaming/creationSite(_:)`` chose.
    public struct CreationSite: Hashable, Sendable {
        /// `main.swift:12` (file name without its directory), `main.swift` when the frame has no line, or
        /// `nil` when it has no file.
        public var place: String?
        /// The frame's function.
        public var function: String

        /// Creates a creation site.
        public init(place: String?, function: String) {
            self.place = place
            self.function = function
        }

        /// `main.swift:12 in makeRing()`, or the function alone when there is no place.
        public var text: String {
            place.map { "\($0) in \(function)" } ?? function
        }
    }

    /// The creation site of a backtrace (the user's own frames come first, as the symbolizer orders them):
    /// the first frame with a real source place that is not compiler-generated (see
    /// ``isCompilerGenerated(_:)``: an `__allocating_init` or a thunk only allocates or forwards, so the line
    /// that called it is shown instead), else the first frame with a real source file, else the first frame
    /// (its function alone).
    ///
    /// A real place is a file that is not a compiler's stand-in name (`<stdin>`, `<compiler-generated>`:
    /// anything in angle brackets) and a line above 0 (DWARF's line 0 means "no line"); frames without one
    /// are passed over as places. This is the one creation-site rule: every renderer uses it.
    ///
    /// - Returns: The site, or `nil` for an empty backtrace.
    /// - Complexity: O(*f*) for *f* frames.
    public static func creationSite(_ backtrace: [LeakReport.Frame]) -> CreationSite? {
        let placed = placedFrame(backtrace)
        guard let frame = placed ?? backtrace.first(where: { realFile($0) != nil }) ?? backtrace.first else {
            return nil
        }
        guard let file = realFile(frame) else { return CreationSite(place: nil, function: frame.function) }
        return CreationSite(place: place(file: file, line: realLine(frame)), function: frame.function)
    }

    /// The creation site of a leaked object: ``creationSite(_:)`` of its backtrace, except for a box
    /// (a captured `var`) or a closure context, which the compiler allocates in code without a line of
    /// its own: the innermost frame that is not compiler-generated is the function that made it, even
    /// without a line (`created in makeConsole()`, with its file when known) — the next frame with a line
    /// is its caller, the wrong function.
    public static func creationSite(of leak: LeakReport.Leak) -> CreationSite? {
        let boxOrContext = leak.kind == ObjectKind.box.rawValue || leak.kind == ObjectKind.closureContext.rawValue
        if boxOrContext, let own = leak.backtrace.first(where: { !isCompilerGenerated($0.function) }),
            realLine(own) == nil,
            !own.function.hasPrefix("0x")
        {
            return CreationSite(place: realFile(own).map { place(file: $0, line: nil) }, function: own.function)
        }
        return creationSite(leak.backtrace)
    }

    /// The frame a creation site is placed at: the first with a real source file and line that is not
    /// compiler-generated (see ``creationSite(_:)``), or `nil`.
    public static func placedFrame(_ backtrace: [LeakReport.Frame]) -> LeakReport.Frame? {
        backtrace.first { realFile($0) != nil && realLine($0) != nil && !isCompilerGenerated($0.function) }
    }

    /// A frame's file when it is a real one (not empty, not a compiler's `<…>` stand-in).
    static func realFile(_ frame: LeakReport.Frame) -> String? {
        guard let file = frame.file, !file.isEmpty, !file.hasPrefix("<") else { return nil }
        return file
    }

    /// A frame's line when it is a real one (above 0).
    static func realLine(_ frame: LeakReport.Frame) -> Int? {
        guard let line = frame.line, line > 0 else { return nil }
        return line
    }

    /// Remembers the creation site of the last backtrace asked for: objects made at one place have equal
    /// backtraces, one after the other, and comparing frames is cheaper than finding the site again.
    public struct CreationSiteCache: Sendable {
        private var last: [LeakReport.Frame]?
        private var lastSite: CreationSite?

        /// Creates an empty cache.
        public init() {}

        /// ``ReportNaming/creationSite(_:)`` of `backtrace`.
        public mutating func site(_ backtrace: [LeakReport.Frame]) -> CreationSite? {
            if let last, last == backtrace {
                return lastSite
            }
            last = backtrace
            lastSite = ReportNaming.creationSite(backtrace)
            return lastSite
        }
    }

    /// `main.swift:12` from `/src/main.swift` and 12; `main.swift` without a line.
    public static func place(file: String, line: Int?) -> String {
        let fileName = file.split(separator: "/").last.map(String.init) ?? file
        return line.map { "\(fileName):\($0)" } ?? fileName
    }

    /// Whether a demangled function name is a class's allocating initializer or a thunk: it contains
    /// `__allocating_init` or starts with one of ``compilerGeneratedPrefixes``.
    public static func isCompilerGenerated(_ function: String) -> Bool {
        function.contains("__allocating_init") || compilerGeneratedPrefixes.contains { function.hasPrefix($0) }
    }

    /// The beginnings of demangled names of thunks and forwarders, which only forward to the real work.
    public static let compilerGeneratedPrefixes = [
        "reabstraction thunk", "thunk for ", "dispatch thunk of ", "vtable thunk for ", "protocol witness for ",
        "partial apply forwarder for ", "@objc ", "@nonobjc ", "autoclosure thunk",
    ]

    // MARK: Type groups

    /// `objects` grouped by name (each group a `TypeTally` whose `type` is the shown name): largest byte
    /// total first, then the larger count, then by name.
    ///
    /// - Parameter objects: Each object's shown type name and size in bytes.
    /// - Complexity: O(*n* + *t* log *t*) for *n* objects of *t* names.
    public static func typeGroups(_ objects: some Sequence<(name: String, size: Int)>) -> [TypeTally] {
        var groups: [String: (count: Int, bytes: Int)] = [:]
        for (name, size) in objects {
            groups[name, default: (0, 0)].count += 1
            groups[name, default: (0, 0)].bytes += size
        }
        return groups.sorted { a, b in
            if a.value.bytes != b.value.bytes { return a.value.bytes > b.value.bytes }
            if a.value.count != b.value.count { return a.value.count > b.value.count }
            return a.key < b.key
        }.map { TypeTally(type: $0.key, count: $0.value.count, bytes: $0.value.bytes) }
    }

    /// `a`, `a and b`, `a, b and c`; past `limit` names, `a, b, … and N more`.
    public static func list(_ items: [String], limit: Int = 5) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        if items.count > limit {
            return items.prefix(limit).joined(separator: ", ") + " and \(grouped(items.count - limit)) more"
        }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }

    // MARK: Numbers and words

    /// `12,345`: the decimal digits in groups of three, `-` before a negative value.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// `1 leak`, `12 leaks`, `1,024 bytes`: ``grouped(_:)`` and `noun`, with an `s` unless `value` is 1.
    public static func count(_ value: Int, _ noun: String) -> String {
        "\(grouped(value)) \(noun)\(value == 1 ? "" : "s")"
    }

    /// `1 leak family`, `2 leak families`: ``grouped(_:)`` and `noun`, or `plural` unless `value` is 1.
    public static func count(_ value: Int, _ noun: String, plural: String) -> String {
        "\(grouped(value)) \(value == 1 ? noun : plural)"
    }
}
