import LeakGraphModel

/// A reference the exact walk did not read, proven by the holder scan to be the only kind of holder an
/// object has left: a word in `from` (or in untracked malloc'd memory only `from` owns) pointing at `to`,
/// whose retains nothing else explains. It counts as a strong reference — the object is leaked exactly
/// when everything holding such a word is (docs/how-it-works.md, "Raw pointers").
public struct RawReference: Sendable, Equatable {
    /// The node holding the word.
    public var from: Int
    /// The node the word points at.
    public var to: Int
    /// Where the word is: `rawPointer(field:offset:)` or `ownedMemoryPointer`.
    public var step: PathStep

    /// Creates a raw reference.
    public init(from: Int, to: Int, step: PathStep) {
        self.from = from
        self.to = to
        self.step = step
    }
}

extension HeapScan {
    /// The step naming a word at `location` in node `node` (whose object starts at `address`): the stored
    /// property containing it when the object is a class instance, else its offset. `throughMemory`: the
    /// word leads to untracked memory the object owns, which holds the pointer.
    /// Every such word of a task lies in its async frames (its initial context, its allocator's slabs).
    public func rawPointerStep(inNode node: Int, address: UInt, location: UInt, throughMemory: Bool) -> PathStep {
        if plan(of: node).role == .task {
            return .asyncFrames
        }
        let offset = Int(location &- address)
        let field = UnsafeRawPointer(bitPattern: address)
            .flatMap { UnsafeRawPointer(bitPattern: $0.load(as: UInt.self)) }
            .flatMap { plan(of: node).kind == .class ? FieldNames.field(containing: offset, metadata: $0) : nil }
        return throughMemory
            ? .ownedMemoryPointer(field: field, offset: offset) : .rawPointer(field: field, offset: offset)
    }

    /// The task group children whose own retain the walk attributed to their parent task
    /// (``ChildAttribution``) and whom nothing else holds, each with its parent: such a child lives exactly
    /// as long as its parent, and what the child's memory holds, its parent may be said to hold.
    ///
    /// - Complexity: O(*e*) when there are such children; O(1) otherwise.
    public func soleParentTasks() -> [Int: Int] {
        guard !childAttributions.isEmpty else { return [:] }
        let children = Dictionary(
            childAttributions.map { ($0.child, $0.parent) }, uniquingKeysWith: { first, _ in first })
        var inEdges: [Int: Int] = [:]
        for target in strongGraph.targets where children[Int(target)] != nil { inEdges[Int(target), default: 0] += 1 }
        return children.filter { inEdges[$0.key] == 1 && strongGraph.retainCounts[$0.key] == 1 }
    }

    /// Whether `node` is a concurrency task LeakGraph reads.
    public func isTask(node: Int) -> Bool {
        plan(of: node).role == .task
    }

    /// Whether the object of `node` may keep live words past the size it was allocated with, in the rest
    /// of its malloc block: a task (its initial async context and first frames follow its header), a
    /// collection's storage or another tail-allocated object (their capacity comes from malloc's usable
    /// size), or an object whose layout was not read whole. A plain class instance, closure context or
    /// box never touches bytes past its size: a word there is stale and holds nothing.
    public func mayUseBytesPastItsSize(ofNode node: Int) -> Bool {
        let plan = plan(of: node)
        switch plan.kind {
        case .class, .closureContext, .box:
            return plan.tail != nil || plan.role != .none || !plan.unreadable.isEmpty
        default:
            return true
        }
    }

    /// The scan with `references` added: strong references of its graph (each explaining one retain of
    /// its target), and references of every object graph built from it.
    public func adding(_ references: [RawReference]) -> HeapScan {
        guard !references.isEmpty else { return self }
        var scan = self
        scan.strongGraph = strongGraph.adding(references.map { ($0.from, $0.to) })
        scan.rawReferences += references
        return scan
    }
}
