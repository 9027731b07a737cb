import LeakGraphReport

extension RetainerChain.Holder {
    /// One line naming the holder: `global Fixture.observers : [Fixture.Observer] (in Fixture)`,
    /// `a thread's stack (a local variable or saved register)`, ….
    public var description: String {
        let location = location.map { " (in \($0))" } ?? ""
        switch kind {
        case .global:
            return "global \(name.map { "`\($0)`" } ?? "variable")\(location)"
        case .stack:
            return "a thread's stack (a local variable or a saved register)\(location)"
        case .untrackedMemory:
            return "memory no Swift metadata describes (a malloc block or C structure)\(location)"
        case .unreadField:
            return "a field of \(name.map { ReportNaming.shortName($0) } ?? "an object") the walk could not read"
        case .unknown:
            return "something outside the heap the scan could not see (a register, an encoded pointer, the kernel)"
        }
    }
}

extension RetainerChain.Holder {
    /// The global's name as code reads it: its symbol without the type annotation and module
    /// (`static NotificationCentre.shared`, `openControllers`); `nil` unless ``kind`` is `global` with a name.
    public var shortGlobalName: String? {
        guard kind == .global, let name else { return nil }
        var text = Substring(name)
        if let colon = text.firstRange(of: " : ") {
            text = text[..<colon.lowerBound]
        }
        let prefix = text.hasPrefix("static ") ? "static " : ""
        return prefix + ReportNaming.shortName(String(text.dropFirst(prefix.count)))
    }
}

extension RetainerChain {
    /// The chain on one line, the way a developer reads it: the holder, each reference's label
    /// (a subscript joined to the field before it), then the object:
    /// `static NotificationCentre.shared → observers[0] → handler (closure) → ProfileViewController`.
    public var summaryLine: String {
        var parts: [String] = []
        if let global = holder.shortGlobalName {
            parts.append(global)
        } else {
            parts.append(holder.kind == .unknown ? "(root)" : "(\(holder.kind.rawValue))")
            parts.append(ReportNaming.shortName(root.type))
        }
        for link in links.dropFirst() {
            let label = link.label ?? "?"
            if link.path?.startsWithSubscript == true, let last = parts.last,
                parts.count > 1 || holder.shortGlobalName != nil
            {
                parts[parts.count - 1] = last + label
            } else {
                parts.append(label)
            }
        }
        if links.count > 1 {
            parts.append(ReportNaming.shortName(target.type))
        }
        return parts.joined(separator: " → ")
    }

    /// The chain as text lines, indented by `indent` spaces: the object asked about, its holder, and
    /// one line per object from the root to it with the label of the reference into it.
    public func textLines(indent: Int = 3) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var lines = ["\(pad)\(ReportNaming.shortName(target.type)) (\(target.address)) is alive because:"]
        lines.append(
            "\(pad)  held by \(holder.description)\(holder.address.map { " at \($0)" } ?? "")"
                + (unexplainedRetains > 1 ? ", \(unexplainedRetains) retains unexplained" : ""))
        for (index, link) in links.enumerated() {
            let arrow = link.label.map { "—\($0)→ " } ?? ""
            let marker = index == links.count - 1 && links.count > 1 ? "  ← this object" : ""
            lines.append(
                "\(pad)    \(arrow)\(ReportNaming.shortName(link.type)) (\(link.address), retained \(link.retainCount))\(marker)"
            )
        }
        return lines
    }
}
