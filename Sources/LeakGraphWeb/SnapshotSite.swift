import Foundation
import LeakGraphAnalysis
import LeakGraphGraphviz
import LeakGraphModel
import LeakGraphReport
import Synchronization

/// The web UI of one heap snapshot (`leakgraph serve`): every view a URL, answered from indexes built
/// once when the site is made.
///
/// | URL | view |
/// |---|---|
/// | `/`, `/types?q=&leaks=1&mine=1&by=type\|site&sort=` | every type (or creation site) with count, shallow and retained bytes |
/// | `/type/N`, `/site/N` (`?page=`) | the objects of a type or site, by retained size |
/// | `/object/N` or `/object/0xADDRESS` (`?hops=`) | the memory inspector of one object, with its neighbourhood graph |
/// | `/leaks` | the root cycles, as the HTML leak report shows them |
/// | `/dominators`, `/dominators/N` | the dominator tree, one level at a time |
/// | `/comparison?by=type\|site` | what changed since the older snapshot (`--compare`) |
///
/// Pages work without JavaScript; a line of it submits the filter form when a switch changes.
public final class SnapshotSite: Sendable {
    let snapshot: HeapSnapshot
    let analysis: SnapshotAnalysis
    let old: (snapshot: HeapSnapshot, analysis: SnapshotAnalysis)?
    /// Shown type names (modules dropped where unambiguous).
    let names: [String]
    /// What only object pages need, made on a thread of its own as the site is made (the first page
    /// does not wait for it); a page that needs it first waits for it or makes it.
    private let referenceIndexes = Mutex<ReferenceIndexes?>(nil)
    /// Roots by object.
    let rootOf: [Int: HeapSnapshot.Root]
    /// Leak group by object.
    let groupOf: [Int: Int]
    /// Objects grouped by creation site, and whether each site is in the program's own code.
    let sites: (ofObject: [UInt32], names: [String])
    let siteIsProgram: [Bool]
    /// The leaks page, made on first request.
    let leaksPage = Mutex<String?>(nil)

    /// The site of `snapshot` (analysed as `analysis`), compared with `old` when given.
    public init(
        snapshot: HeapSnapshot, analysis: SnapshotAnalysis,
        comparingWith old: (snapshot: HeapSnapshot, analysis: SnapshotAnalysis)? = nil
    ) {
        self.snapshot = snapshot
        self.analysis = analysis
        self.old = old
        let display = ReportNaming.displayNames(for: snapshot.types.map(\.name))
        names = snapshot.types.map { display[$0.name] ?? $0.name }
        let count = snapshot.objects.count
        rootOf = Dictionary(snapshot.roots.map { ($0.object, $0) }, uniquingKeysWith: { first, _ in first })
        var groupOf: [Int: Int] = [:]
        for (group, members) in analysis.leakGroups.enumerated() { for member in members { groupOf[member] = group } }
        self.groupOf = groupOf
        sites = snapshot.groups(by: .site)
        var siteIsProgram = [Bool](repeating: false, count: sites.names.count)
        var stackSeen = [Bool](repeating: false, count: snapshot.stacks.count)
        for object in 0..<count {
            let stack = Int(snapshot.objects.stack[object])
            guard stack >= 0, stack < stackSeen.count, !stackSeen[stack] else { continue }
            stackSeen[stack] = true
            if let frame = snapshot.creationSiteFrame(ofStack: stack),
                snapshot.frames[snapshot.stacks[stack][frame]].category == .program
            {
                siteIsProgram[Int(sites.ofObject[object])] = true
            }
        }
        self.siteIsProgram = siteIsProgram
        Thread.detachNewThread { [self] in _ = indexes }
    }

    /// The site's ``ReferenceIndexes``, made by the first caller (the others wait for it).
    var indexes: ReferenceIndexes {
        referenceIndexes.withLock { indexes in
            if let indexes { return indexes }
            let made = ReferenceIndexes(snapshot)
            indexes = made
            return made
        }
    }

    /// The response to `request`.
    func respond(to request: WebRequest) -> WebResponse {
        let segments = request.segments
        switch segments.first {
        case nil, "types":
            return .html(typesPage(request))
        case "type", "site":
            guard segments.count == 2, let index = Int(segments[1]) else { return notFound(request) }
            let isType = segments[0] == "type"
            guard index >= 0, index < (isType ? snapshot.types.count : sites.names.count) else {
                return notFound(request)
            }
            return .html(objectsPage(group: index, byType: isType, request: request))
        case "object":
            guard segments.count == 2, let object = objectID(segments[1]) else { return notFound(request) }
            return .html(objectPage(object, request: request))
        case "leaks":
            return .html(leaksHTML())
        case "dominators":
            if segments.count == 1 { return .html(dominatorsPage(node: analysis.superRoot)) }
            guard segments.count == 2, let node = dominatorNode(segments[1]) else { return notFound(request) }
            return .html(dominatorsPage(node: node))
        case "comparison":
            return .html(comparisonPage(request))
        case "favicon.ico":
            return WebResponse(status: 404, contentType: "text/plain", body: "")
        default:
            return notFound(request)
        }
    }

    /// An object by index (`12`) or address (`0x7f…`).
    func objectID(_ text: String) -> Int? {
        if text.hasPrefix("0x") {
            return UInt64(text.dropFirst(2), radix: 16).flatMap { snapshot.object(at: $0) }
        }
        guard let id = Int(text), id >= 0, id < snapshot.objects.count else { return nil }
        return id
    }

    /// A dominator-tree node: an object (`12`), or a leak group (`group-0`).
    func dominatorNode(_ text: String) -> Int? {
        if text.hasPrefix("group-"), let group = Int(text.dropFirst(6)), group >= 0, group < analysis.leakGroups.count {
            return analysis.superRoot + 1 + group
        }
        return objectID(text)
    }

    private func notFound(_ request: WebRequest) -> WebResponse {
        let path = "/" + request.segments.joined(separator: "/")
        return .html(
            page(title: "Not found", body: "<h1>Not found</h1><p>Nothing at <code>\(escape(path))</code>.</p>"),
            status: 404)
    }
}

/// The indexes of a snapshot's references that object pages need: every reference turned around, and
/// the strong graph with its reverse for retainer chains. About 20 bytes per reference.
final class ReferenceIndexes: Sendable {
    /// `incoming[targetOffsets[o] ..< targetOffsets[o + 1]]` are the (source, reference) pairs into
    /// object `o`.
    let targetOffsets: [UInt32]
    let incoming: [(source: UInt32, reference: UInt32)]
    /// The strong graph and its reverse.
    let strong: StrongReferenceGraph
    let reversed: RetainerPaths.Reversed

    init(_ snapshot: HeapSnapshot) {
        let count = snapshot.objects.count
        var offsets = [UInt32](repeating: 0, count: count + 1)
        for target in snapshot.references.targets { offsets[Int(target) + 1] += 1 }
        for object in 0..<count { offsets[object + 1] += offsets[object] }
        var fill = offsets
        var incoming = [(source: UInt32, reference: UInt32)](repeating: (0, 0), count: snapshot.references.count)
        for source in 0..<count {
            for reference in snapshot.references.range(of: source) {
                let target = Int(snapshot.references.targets[reference])
                incoming[Int(fill[target])] = (UInt32(source), UInt32(reference))
                fill[target] += 1
            }
        }
        targetOffsets = offsets
        self.incoming = incoming
        strong = snapshot.strongGraph()
        reversed = RetainerPaths.Reversed(strong)
    }

    /// The (source, reference) pairs into `object`.
    func retainers(of object: Int) -> ArraySlice<(source: UInt32, reference: UInt32)> {
        incoming[Int(targetOffsets[object])..<Int(targetOffsets[object + 1])]
    }
}
