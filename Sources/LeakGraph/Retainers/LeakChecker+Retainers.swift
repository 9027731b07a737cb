import LeakGraphReport

extension LeakChecker {
    /// Why `object` is alive: the shortest chain of strong references from a root to it, each step
    /// labelled, and what holds the root (a global by name, a thread's stack, C memory) — or `nil` when
    /// it is not tracked (allocated before recording started) or no root reaches it (it is leaked: a
    /// leak check reports it).
    ///
    /// The holder is found by a scan of the process's memory that stops the other threads for a moment
    /// (docs/how-it-works.md, "Why is it alive"); `scanForHolder: false` leaves it unknown and stops
    /// nothing. The object must stay alive during the call: the caller's reference keeps it, and is
    /// not in the chain (it counts among the root's retains when the object is a root itself).
    public static func retainers(of object: AnyObject, scanForHolder: Bool = true) -> RetainerChain? {
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        return withExtendedLifetime(object) {
            RetainerSearch.find(limit: 1, scanForHolders: scanForHolder) { scan, objects in
                scan.node(at: address, address: { objects[$0] }).map { [$0] } ?? []
            }.chains.first
        }
    }

    /// Why the live objects whose type matches `type` are alive (a full name, `MyApp.Cache`, or the
    /// name without its module, `Cache`): one chain per object, at most `limit`.
    public static func retainers(ofType type: String, limit: Int = 10, scanForHolders: Bool = true) -> RetainerQuery {
        let found = RetainerSearch.find(limit: limit, scanForHolders: scanForHolders) { scan, _ in
            scan.nodes { $0 == type || ReportNaming.shortName($0) == type }
        }
        return RetainerQuery(type: type, matched: found.matched, leaked: found.leaked, chains: found.chains)
    }
}
