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

    /// Why the live objects whose type matches `type` are alive: any name the report prints (a full
    /// name, `MyApp.Cache`, the name without its module, `Cache<Swift.Int>`, nested generics with or
    /// without the modules inside and with any spacing), or a short name, `Observer`, for every type
    /// whose last component is named so (`TypeNameQuery`): one chain per object, at most `limit`, and
    /// the types that matched.
    public static func retainers(ofType type: String, limit: Int = 10, scanForHolders: Bool = true) -> RetainerQuery {
        let query = TypeNameQuery(type)
        var types = Set<String>()
        let found = RetainerSearch.find(limit: limit, scanForHolders: scanForHolders) { scan, _ in
            let nodes = scan.nodes { query.matches($0) }
            for node in nodes { types.insert(scan.typeName(ofNode: node)) }
            return nodes
        }
        return RetainerQuery(
            type: type, matched: found.matched, leaked: found.leaked, chains: found.chains, matchedTypes: types.sorted()
        )
    }
}
