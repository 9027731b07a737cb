import LeakGraphModel

extension HeapSnapshot {
    /// How objects are grouped in a histogram or a comparison.
    public enum Grouping: String, Sendable, Codable, CaseIterable {
        /// By type.
        case type
        /// By creation site (``ReportNaming/creationSite(_:)`` of the object's stack).
        case site
    }

    /// The text shown for objects without a creation stack, grouped by site.
    public static let noSite = "(no creation stack)"

    /// Each object's group number and the groups' names: by type (the type table itself) or by creation
    /// site (one group per distinct site text, in order of first object).
    ///
    /// - Complexity: O(*n*) plus one site per stack.
    public func groups(by grouping: Grouping) -> (ofObject: [UInt32], names: [String]) {
        switch grouping {
        case .type:
            return (objects.type, types.map(\.name))
        case .site:
            var names: [String] = []
            var index: [String: UInt32] = [:]
            func group(_ name: String) -> UInt32 {
                if let known = index[name] { return known }
                index[name] = UInt32(names.count)
                names.append(name)
                return UInt32(names.count - 1)
            }
            let ofStack = stacks.indices.map { group(creationSite(ofStack: $0)?.text ?? Self.noSite) }
            var ofObject = [UInt32](repeating: 0, count: objects.count)
            var none: UInt32?
            for object in 0..<objects.count {
                let stack = objects.stack[object]
                if stack >= 0 {
                    ofObject[object] = ofStack[Int(stack)]
                } else {
                    if none == nil { none = group(Self.noSite) }
                    ofObject[object] = none!
                }
            }
            return (ofObject, names)
        }
    }

    /// Each object's group name (for ``SnapshotComparison``).
    public func groupNames(by grouping: Grouping) -> [String] {
        let (ofObject, names) = groups(by: grouping)
        return ofObject.map { names[Int($0)] }
    }

    /// `0x7f3a…`: an object's address as reports write it.
    public func addressText(of object: Int) -> String {
        "0x" + String(objects.address[object], radix: 16)
    }
}
