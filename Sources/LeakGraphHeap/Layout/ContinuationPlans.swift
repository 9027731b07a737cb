import LeakGraphModel

extension ObjectPlans {
    /// The plan of the standard library's `CheckedContinuationCanary` (the class every copy of a
    /// `CheckedContinuation` holds), or `nil` for any other class.
    ///
    /// The canary has no stored properties: `CheckedContinuationCanary.create(continuation:function:)`
    /// tail-allocates one `(UnsafeRawPointer?, String)` after the object header (16 bytes), the raw
    /// continuation — the address of the task waiting on it, set to nil when resumed — then the name of
    /// the function that made it. The continuation is read as one (``SlotContent/continuation``) for the
    /// task rule (``TaskResumers``); the name is a literal in practice and is not read.
    func continuationCanaryPlan(_ metadata: UnsafeRawPointer, typeName: String) -> ObjectPlan? {
        guard let leaf = ClassMetadata(metadata).descriptor, leaf.name == "CheckedContinuationCanary",
            ["Swift", "_Concurrency"].contains(leaf.moduleName), leaf.classNumFields == 0
        else { return nil }
        let plan = ObjectPlan(
            kind: .class, typeName: typeName,
            slots: [Slot(offset: 16, path: [.property("continuation")], content: .continuation)])
        plan.role = .continuationCanary
        return plan
    }
}
