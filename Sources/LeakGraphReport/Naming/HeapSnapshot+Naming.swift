import LeakGraphModel

extension HeapSnapshot {
    /// The frames of stack `id` as a leak report stores a backtrace: the program's frames first, then
    /// the others, each in their order.
    public func reportFrames(ofStack id: Int) -> [LeakReport.Frame] {
        guard stacks.indices.contains(id) else { return [] }
        let all = stacks[id].map { frames[$0] }
        let ordered = all.filter { $0.category == .program } + all.filter { $0.category != .program }
        return ordered.map { LeakReport.Frame(function: $0.function, file: $0.file, line: $0.line) }
    }

    /// Where the objects of stack `id` were made, by the one creation-site rule
    /// (``ReportNaming/creationSite(_:)``); `nil` for an empty stack.
    public func creationSite(ofStack id: Int) -> ReportNaming.CreationSite? {
        ReportNaming.creationSite(reportFrames(ofStack: id))
    }

    /// The index of the frame ``creationSite(ofStack:)`` chose in stack `id` (`stacks[id]`), to
    /// emphasise it; `nil` for an empty stack.
    public func creationSiteFrame(ofStack id: Int) -> Int? {
        guard let site = creationSite(ofStack: id) else { return nil }
        return stacks[id].firstIndex { index in
            let frame = frames[index]
            let place = frame.file.flatMap {
                $0.isEmpty || $0.hasPrefix("<")
                    ? nil : ReportNaming.place(file: $0, line: frame.line.flatMap { $0 > 0 ? $0 : nil })
            }
            return frame.function == site.function && place == site.place
        }
    }
}
