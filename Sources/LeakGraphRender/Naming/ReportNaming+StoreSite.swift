import LeakGraphReport

extension ReportNaming {
    /// A function as a person writes it in prose: `Member.join(_:)` for
    /// `Fixture.Member.join(Fixture.Room) -> ()`, `Room.add(member:)` for
    /// `Fixture.Room.add(member: Fixture.Member) -> ()`, `closure #1 in make()` for a closure; the module
    /// and the types left out. A name it cannot split is returned as it is.
    public static func shortFunctionName(_ function: String) -> String {
        if function.hasPrefix("closure #") || function.hasPrefix("implicit closure #") {
            var depth = 0
            var index = function.startIndex
            while index < function.endIndex {
                switch function[index] {
                case "(", "[", "<": depth += 1
                case ")", "]": depth -= 1
                case ">" where index > function.startIndex && function[function.index(before: index)] != "-": depth -= 1
                default: break
                }
                if depth == 0, function[index...].hasPrefix(" in ") {
                    let label = function.prefix { $0 != "(" }.trimmingSuffixSpaces()
                    let outer = String(function[function.index(index, offsetBy: 4)...])
                    return "\(label) in \(shortFunctionName(outer))"
                }
                index = function.index(after: index)
            }
            return function
        }
        guard let open = function.firstIndex(of: "(") else { return function }
        var name = Substring(function[..<open])
        if let dot = name.firstIndex(of: "."), !name[..<dot].contains(where: { "<([ ".contains($0) }) {
            name = name[name.index(after: dot)...]
        }
        // The parameter list: top-level commas inside the first parentheses.
        var depth = 0
        var parameters: [Substring] = []
        var start = function.index(after: open)
        var index = start
        var closed = false
        while index < function.endIndex, !closed {
            let character = function[index]
            switch character {
            case "(", "[", "<": depth += 1
            case ">" where index > function.startIndex && function[function.index(before: index)] == "-": break
            case ")", "]", ">":
                if depth == 0 {
                    if index > start { parameters.append(function[start..<index]) }
                    closed = true
                } else {
                    depth -= 1
                }
            case "," where depth == 0:
                parameters.append(function[start..<index])
                start = function.index(after: index)
            default: break
            }
            index = function.index(after: index)
        }
        guard closed else { return function }
        let labels = parameters.map { parameter -> String in
            let trimmed = parameter.drop(while: { $0 == " " })
            if let colon = trimmed.firstIndex(of: ":"), !trimmed[..<colon].contains(where: { " .<(".contains($0) }) {
                return "\(trimmed[..<colon]):"
            }
            return "_:"
        }
        return "\(name)(\(labels.joined()))"
    }

    /// Where a retain was made, as the text and HTML reports write it: `main.swift:14 in Member.join(_:)`,
    /// or `Member.join(_:) (main.swift, no line: optimized code)` when the compiler gave the call no line.
    public static func retainPlace(_ frame: LeakReport.Frame) -> String {
        let function = shortFunctionName(frame.function)
        guard let file = frame.file, !file.isEmpty, !file.hasPrefix("<") else {
            return "\(function) (no source line)"
        }
        guard let line = frame.line, line > 0 else {
            return "\(function) (\(place(file: file, line: nil)), no line: the compiler gave this code none)"
        }
        return "\(place(file: file, line: line)) in \(function)"
    }

    /// One sentence saying where a reference was stored: `Stored at main.swift:14 in Member.join(_:)`;
    /// for a reference that holds its target's first retain, `Stored with the retain of its creation at
    /// …`; `Store site not known (…): candidates …` when the history allows several answers.
    public static func storeSiteText(_ storeSite: LeakReport.StoreSite) -> String {
        if storeSite.known, let site = storeSite.site {
            guard let frame = site.frame else { return "Stored: not known (no frame of the program's own code)" }
            if site.isAllocation {
                return "Stored with the object's first retain, made at \(retainPlace(frame)) (the store moved it)"
            }
            return "Stored at \(retainPlace(frame))"
        }
        let candidates = (storeSite.candidates ?? []).map { candidate -> String in
            let place = candidate.frame.map(retainPlace) ?? candidate.stack.first.map(retainPlace) ?? "an unknown stack"
            return candidate.isAllocation ? "\(place) (its creation)" : place
        }
        let reason = storeSite.reason.map { " (\($0))" } ?? ""
        guard !candidates.isEmpty else { return "Stored: not known\(reason)" }
        return "Stored: not known\(reason); candidates: \(candidates.joined(separator: "; "))"
    }
}

extension Substring {
    fileprivate func trimmingSuffixSpaces() -> Substring {
        var result = self
        while result.last == " " { result = result.dropLast() }
        return result
    }
}
