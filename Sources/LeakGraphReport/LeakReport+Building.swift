import LeakGraphAnalysis
import LeakGraphModel

extension LeakReport {
    /// Builds the report of the graph `analysis` was computed from.
    ///
    /// - Leak ids run `0 ..< leakedObjects`, root cycle by root cycle (in ``LeakAnalysis/rootCycles``
    ///   order): the cycle's members, then the objects it holds, each in ascending node order. A leaked
    ///   object in no root cycle (the analysis never produces one) would come last with a `nil` cycle.
    /// - Cycle ids are the analysis' root-cycle ids (`0 ..< rootCycles`). Each cycle's `fingerprint` is
    ///   ``LeakGraphAnalysis/LeakAnalysis/fingerprints()`` and its `suspect` is
    ///   ``LeakGraphAnalysis/LeakAnalysis/suspectReferences()`` with node indices turned into leak ids and
    ///   the reference index into one of `references`; `heldCycles` are the analysis' held cycles as leak ids.
    /// - Root cycles that are known library leaks (``KnownLibraryLeaks``) excuse only themselves: the
    ///   analysis is regrouped with ``LeakGraphAnalysis/LeakAnalysis/excusing(rootCycles:libraryReference:)``, so each cycle
    ///   among the objects they hold is a root cycle of its own, with `heldByKnownLibraryLeak` set.
    /// - `address` is `0x` and lowercase hexadecimal; `kind` is the ``ObjectKind`` raw value.
    /// - `references` are all references, of every ownership, whose two endpoints are leaked, ordered by
    ///   source id and then as the walk found them.
    /// - `proof` lists, per leaked object, the leak ids of the sources of its strong in-edges (ascending,
    ///   one per reference); their number equals its retain count.
    /// - `summary.liveObjects` is the graph's ``LeakGraphModel/ObjectGraph/liveObjects``: a check's graph
    ///   holds the leaked objects only and counts the live ones it left out.
    /// - `backtrace` is called once per distinct creation stack id (the results are shared); objects with
    ///   no stack id get an empty backtrace. It lets this module stay independent of symbolication.
    ///   With `diagnosticSites`, it also names where one object of each diagnostic was created
    ///   (``WalkDiagnostic/site``).
    ///
    /// - `storeSites` (``LeakGraphAnalysis/LeakAnalysis/storeSites(frames:)``, by graph reference index)
    ///   become the references' ``LeakReference/storeSite``, their stacks turned into frames by `backtrace`.
    ///
    /// - Complexity: O(*n* + *e*) plus the calls to `backtrace`.
    public init(
        analysis: LeakAnalysis, program: Program, diagnostics extraDiagnostics: [WalkDiagnostic] = [],
        diagnosticSites: Bool = true, storeSites: [Int: LeakGraphAnalysis.StoreSite] = [:],
        backtrace: (_ stackID: Int) -> [Frame] = { _ in [] }
    ) {
        let graph = analysis.graph
        let analysis = Self.excusingKnownLibraryLeaks(analysis)
        let nodeCount = graph.nodes.count

        // Leak ids, cycle by cycle: members then holds.
        var order: [Int] = []
        order.reserveCapacity(analysis.leaked.count)
        for cycle in analysis.rootCycles {
            order.append(contentsOf: cycle.members)
            order.append(contentsOf: cycle.holds)
        }
        var leakID = [Int](repeating: -1, count: nodeCount)
        for (id, node) in order.enumerated() {
            leakID[node] = id
        }
        for node in analysis.leaked where leakID[node] == -1 {
            leakID[node] = order.count
            order.append(node)
        }

        var frames: [Int: [Frame]] = [:]
        var leaks: [Leak] = []
        leaks.reserveCapacity(order.count)
        for (id, node) in order.enumerated() {
            let object = graph.nodes[node]
            var stack: [Frame] = []
            if let stackID = object.stackID {
                if let known = frames[stackID] {
                    stack = known
                } else {
                    stack = backtrace(stackID)
                    frames[stackID] = stack
                }
            }
            let inEdges = analysis.proof(of: node).map { leakID[$0] }.sorted()
            leaks.append(
                Leak(
                    id: id, address: Self.hexAddress(object.address), type: object.typeName,
                    kind: object.kind.rawValue, size: object.size, retainCount: object.retainCount,
                    cycle: analysis.cycleOf(node), backtrace: stack,
                    proof: Proof(retainCount: object.retainCount, inEdges: inEdges)
                )
            )
        }

        // References among leaked objects, grouped by source id (a counting sort keeps the walk's order).
        let valid = 0..<nodeCount
        var perSource = [Int](repeating: 0, count: order.count + 1)
        for reference in graph.references
        where valid.contains(reference.from) && valid.contains(reference.to)
            && leakID[reference.from] >= 0 && leakID[reference.to] >= 0
        {
            perSource[leakID[reference.from] + 1] += 1
        }
        for id in 0..<order.count {
            perSource[id + 1] += perSource[id]
        }
        var references = [LeakReference](
            repeating: LeakReference(from: 0, to: 0, path: .empty, ownership: .strong), count: perSource[order.count]
        )
        // Per cycle: the suspect, then the other references to cut, their fixes offered where they compile.
        let cuts = analysis.cutReferences(
            context: Self.suspectContext(leaks: leaks, order: order, nodeCount: nodeCount))
        var reportIndexOf: [Int: Int] = [:]  // graph reference index → report reference index, for cuts
        let suspectIndices = Set(cuts.joined().map(\.reference))
        for (graphIndex, reference) in graph.references.enumerated()
        where valid.contains(reference.from) && valid.contains(reference.to)
            && leakID[reference.from] >= 0 && leakID[reference.to] >= 0
        {
            let from = leakID[reference.from]
            references[perSource[from]] = LeakReference(
                from: from, to: leakID[reference.to], path: reference.path, ownership: reference.ownership
            )
            if let site = storeSites[graphIndex] {
                references[perSource[from]].storeSite = StoreSite(site, backtrace: backtrace)
            }
            if suspectIndices.contains(graphIndex) { reportIndexOf[graphIndex] = perSource[from] }
            perSource[from] += 1
        }

        let fingerprints = analysis.fingerprints()
        let cycles = analysis.rootCycles.map { cycle in
            let knownLeak = Self.knownLibraryLeak(cycle, in: graph)
            let named = cuts[cycle.id].map {
                Suspect(
                    reference: reportIndexOf[$0.reference], from: leakID[$0.from], to: leakID[$0.to],
                    label: $0.path.text,
                    reason: $0.reason, hint: $0.hint)
            }
            let suspect = named.first
            let otherCuts = named.count > 1 ? Array(named.dropFirst()) : nil
            return Cycle(
                id: cycle.id, members: cycle.members.map { leakID[$0] }, holds: cycle.holds.map { leakID[$0] },
                heldCycles: cycle.heldCycles.map { $0.map { leakID[$0] } },
                fingerprint: fingerprints[cycle.id], suspect: suspect, otherCuts: otherCuts,
                knownLibraryLeak: knownLeak,
                heldByKnownLibraryLeak: knownLeak == nil ? cycle.heldBy : nil,
                kind: cycle.isOrphan ? Cycle.orphanKind : nil
            )
        }
        let summary = Summary(
            trackedObjects: graph.trackedObjects, liveObjects: graph.liveObjects, leakedObjects: leaks.count,
            leakedBytes: analysis.leakedBytes, rootCycles: cycles.count
        )
        // Each diagnostic names where one of its objects was created (the closure's maker, for a
        // context), from its example creation stack.
        var diagnostics = graph.diagnostics + extraDiagnostics
        for index in diagnostics.indices where diagnosticSites && diagnostics[index].site == nil {
            guard let stack = diagnostics[index].stackID,
                let site = ReportNaming.creationSite(backtrace(stack))
            else { continue }
            diagnostics[index].site = site.place.map { "\($0) in \(site.function)" } ?? site.function
        }
        self.init(
            program: program, summary: summary, leaks: leaks, references: references, cycles: cycles,
            diagnostics: diagnostics
        )
        liveTypes = graph.liveTypes
    }

    /// `analysis` with every known library leak that holds objects excused
    /// (``LeakGraphAnalysis/LeakAnalysis/excusing(rootCycles:libraryReference:)``), the libraries' own
    /// references (``KnownLibraryLeaks/Pattern/ownReferences``) left out of the cycles of what they hold.
    ///
    /// - Complexity: O(*n* + *e*).
    static func excusingKnownLibraryLeaks(_ analysis: LeakAnalysis) -> LeakAnalysis {
        let nodes = analysis.graph.nodes
        var analysis = analysis
        // A known leak found among what another held (XCTest's `measure {}` cycle, held by the root suite)
        // excuses only itself too: repeat until no new one holds anything.
        var excused = Set<[Int]>()
        for _ in 0..<8 {
            let known = analysis.rootCycles.filter { cycle in
                !cycle.holds.isEmpty && !excused.contains(cycle.members)
                    && knownLibraryLeak(cycle, in: analysis.graph) != nil
            }
            guard !known.isEmpty else { break }
            excused.formUnion(known.map(\.members))
            let ids = Set(analysis.rootCycles.filter { excused.contains($0.members) }.map(\.id))
            analysis = analysis.excusing(rootCycles: ids) { reference in
                KnownLibraryLeaks.isOwnReference(
                    path: reference.path, sourceType: nodes[reference.from].typeName,
                    targetType: nodes[reference.to].typeName)
            }
        }
        return analysis
    }

    /// The known library leak `cycle` is (``KnownLibraryLeaks/match(memberTypes:references:)``), from its
    /// members' types and the strong references among them.
    ///
    /// - Complexity: O(*m*) for *m* members; O(*e*) more for an entry that reads the references.
    static func knownLibraryLeak(_ cycle: RootCycle, in graph: ObjectGraph) -> String? {
        KnownLibraryLeaks.match(memberTypes: cycle.members.map { graph.nodes[$0].typeName }) {
            var position: [Int: Int] = [:]
            for (index, member) in cycle.members.enumerated() { position[member] = index }
            var references: [KnownLibraryLeaks.CycleReference] = []
            for reference in graph.references where reference.ownership == .strong {
                if let from = position[reference.from], let to = position[reference.to] {
                    references.append(KnownLibraryLeaks.CycleReference(from: from, to: to, path: reference.path))
                }
            }
            return references
        }
    }

    /// What the suspect rules may know from the leaks' creation stacks (``SuspectContext``): a type is not
    /// the checked code's when its module is a library's (``ReportNaming/libraryModules``) or a
    /// dependency's — one whose functions' source files lie in a package manager's checkouts
    /// (`/.build/checkouts/`, `/SourcePackages/checkouts/`); a closure context was formed in its
    /// creation site's function.
    static func suspectContext(leaks: [Leak], order: [Int], nodeCount: Int) -> SuspectContext {
        var dependencies = Set<String>()
        var formed = [String?](repeating: nil, count: nodeCount)
        var lastBacktrace: [Frame]?
        for (id, node) in order.enumerated() where id < leaks.count {
            let backtrace = leaks[id].backtrace
            if leaks[id].kind == ObjectKind.closureContext.rawValue {
                formed[node] = ReportNaming.creationSite(of: leaks[id])?.function
            }
            guard lastBacktrace != backtrace else { continue }
            lastBacktrace = backtrace
            for frame in backtrace {
                guard let file = frame.file,
                    file.contains("/.build/checkouts/") || file.contains("/SourcePackages/checkouts/"),
                    let module = ReportNaming.module(ofFunction: frame.function)
                else { continue }
                dependencies.insert(module)
            }
        }
        let formedBy = formed
        let dependencyModules = dependencies
        return SuspectContext(
            isOwnType: { type in
                guard let module = ReportNaming.modules(inTypeName: type).first else { return nil }
                if ReportNaming.libraryModules[module] != nil || dependencyModules.contains(module) { return false }
                return nil
            },
            formingFunction: { node in formedBy.indices.contains(node) ? formedBy[node] : nil })
    }

    /// `address` as `0x` followed by lowercase hexadecimal digits, as the report writes addresses.
    public static func hexAddress(_ address: UInt64) -> String {
        "0x" + String(address, radix: 16, uppercase: false)
    }
}
