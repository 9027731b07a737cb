@testable import LeakGraphHeap
import LeakGraphModel
import Testing

/// The capture shapes of issue 21, one per test, made in-process by generic functions (this target is
/// built at -Onone, so their contexts stay generic) and read by the walk.
enum GenericShapes {
    final class Peer {
        var count = 0
    }

    /// The closure comes first: its context is the word at offset 24.
    final class Holder {
        var handler: (() -> Void)?
    }

    final class Signal<Value> {
        var value: Value?
    }

    /// A struct whose one field is a class reference: one pointer whatever `Value` is.
    struct Producer<Value> {
        final class Core {
            var value: Value?
        }

        let core = Core()
    }

    enum Namespace {
        final class Outer<Value> {
            var items: [any Marker] = []

            /// Too large for an existential's buffer, so it is boxed: a box whose one capture is a private
            /// struct nested in a generic class.
            fileprivate struct Inner: Marker {
                let first: Peer
                let second: Peer
                let outer: Outer<Value>
                let count: Int
            }
        }
    }

    protocol Marker {}

    @inline(never)
    static func optionalHandler<A>(_ handler: ((A) -> Void)?, _ owner: Peer, into holder: Holder) {
        holder.handler = { _ = (handler, owner) }
    }

    @inline(never)
    static func classAndFunction<A>(_ signal: Signal<A>, _ keep: @escaping (A) -> Bool, into holder: Holder) {
        holder.handler = { if let value = signal.value { _ = keep(value) } }
    }

    @inline(never)
    static func producer<A>(_ producer: Producer<A>, _ signal: Signal<A>, into holder: Holder) {
        holder.handler = { _ = (producer, signal) }
    }

    @inline(never)
    static func classAndValue<A>(_ signal: Signal<A>, _ value: A, into holder: Holder) {
        holder.handler = { signal.value = value }
    }

    @inline(never)
    static func box<A>(_ outer: Namespace.Outer<A>, _ first: Peer, _ second: Peer) {
        outer.items.append(Namespace.Outer<A>.Inner(first: first, second: second, outer: outer, count: 1))
    }

    @inline(never)
    static func throwingHandlers(_ onSuccess: ((Int) throws -> Void)?, _ onError: ((any Error) throws -> Void)?, into holder: Holder) {
        let handlers = (onSuccess: onSuccess, onError: onError)
        holder.handler = { try? handlers.onSuccess?(1) }
    }

    /// An `@isolated(any)` closure (a `Task`'s operation) comes first here: its context at offset 16.
    final class IsolatedHolder: @unchecked Sendable {
        var operation: (@isolated(any) () async -> Void)?
    }

    @inline(never)
    static func isolated<A: Sendable>(_ value: A, _ peer: Peer, into holder: IsolatedHolder) {
        nonisolated(unsafe) let peer = peer
        holder.operation = { print(value, peer.count) }
    }

    @inline(never)
    static func first(_ a: Peer, _ b: Peer, into holder: Holder) {
        holder.handler = { a.count += b.count }
    }

    @inline(never)
    static func second(_ a: Peer, _ b: Peer, into holder: Holder) {
        holder.handler = { b.count += a.count }
    }

    /// A type name without this enum's qualification.
    static func short(_ name: String) -> String {
        name.replacingOccurrences(of: "LeakGraphHeapTests.GenericShapes.", with: "")
    }

    /// The context of the closure stored in `holder.handler`.
    static func context(_ holder: Holder) -> UInt {
        UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque()).load(fromByteOffset: 24, as: UInt.self)
    }

    /// The walk of `objects` and the context in `holder`: `label ownership → type` of the context's references.
    static func captures(_ holder: Holder, _ objects: [AnyObject], size: Int = 0) -> (references: [String], graph: ObjectGraph) {
        let context = context(holder)
        var contextRecord = record(address: context)
        contextRecord.size = size
        let graph = HeapWalker().walk([record(holder), contextRecord] + objects.map(record))
        let index = graph.nodes.firstIndex { $0.address == UInt64(context) }!
        let references = graph.references.filter { $0.from == index }
            .map { "\($0.label) \($0.ownership.rawValue) → \(short(graph.nodes[$0.to].typeName))" }.sorted()
        return (references, graph)
    }
}

@Suite("Walker: generic closure contexts read without their parameters, or with parameters learnt from captures")
struct GenericCaptureShapeTests {
    typealias S = GenericShapes

    @Test("an Optional<(A) -> ()> capture is a function pointer and a strong context, whatever A")
    func optionalFunction() {
        let holder = S.Holder()
        let owner = S.Peer()
        let target = S.Peer()
        S.optionalHandler({ (_: String) in target.count += 1 }, owner, into: holder)
        let (references, graph) = S.captures(holder, [owner, target])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        #expect(references == ["capture[0] (closure) strong → Peer", "capture[1] strong → Peer"])
    }

    @Test("a capture of Signal<A> is one strong pointer and a (A) -> Bool a pointer and a context: no binding needed")
    func classAndFunction() {
        let holder = S.Holder()
        let signal = S.Signal<[Int]>()
        let peer = S.Peer()
        S.classAndFunction(signal, { _ in peer.count > 0 }, into: holder)
        let (references, graph) = S.captures(holder, [signal, peer])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        #expect(references == ["capture[0] strong → Signal<Swift.Array<Swift.Int>>", "capture[1] (closure) strong → Peer"])
    }

    @Test("a generic struct whose field is a class reference (Producer<A>) is laid out field by field when A is unknown")
    func genericStruct() {
        let holder = S.Holder()
        let producer = S.Producer<String>()
        let signal = S.Signal<String>()
        S.producer(producer, signal, into: holder)
        let (references, graph) = S.captures(holder, [producer.core, signal])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        #expect(references == ["capture[0].core strong → Producer<Swift.String>.Core", "capture[1] strong → Signal<Swift.String>"])
    }

    @Test("a tuple of optional throwing closures (substitutions and word-substituted labels in its name) is read element by element")
    func throwingTuple() {
        let holder = S.Holder()
        let success = S.Peer()
        let failure = S.Peer()
        S.throwingHandlers({ _ in success.count += 1 }, { _ in failure.count += 1 }, into: holder)
        let (references, graph) = S.captures(holder, [success, failure])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        #expect(references == ["capture[0].onError (closure) strong → Peer", "capture[0].onSuccess (closure) strong → Peer"])
    }

    @Test("a box of a private struct nested in a generic class is laid out from the struct's fields")
    func nestedPrivateStruct() {
        let outer = S.Namespace.Outer<Int>()
        let first = S.Peer()
        let second = S.Peer()
        S.box(outer, first, second)
        defer { outer.items = [] }
        // The existential's box is the array element's first word.
        var items = outer.items
        let storage = storageAddress(of: &items)
        let box = UnsafeRawPointer(bitPattern: storage)!.load(fromByteOffset: 32, as: UInt.self)
        let graph = HeapWalker().walk([record(address: storage), record(address: box), record(first), record(second), record(outer)])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        let index = graph.nodes.firstIndex { $0.address == UInt64(box) }!
        let labels = graph.references.filter { $0.from == index }.map(\.label).sorted()
        // Referenced as an existential's box, the context is shown as the box it is: `value.…`.
        #expect(labels == ["value.first", "value.outer", "value.second"])
    }

    @Test("a parameter without a binding is learnt from a captured object's class, and gives the layout the binding gives")
    func learntFromCapturedClass() throws {
        let holder = S.Holder()
        let signal = S.Signal<String>()
        S.classAndValue(signal, "a string long enough to need heap storage", into: holder)
        let context = try #require(UnsafeRawPointer(bitPattern: S.context(holder)))
        let plans = ObjectPlans()
        guard case .genericCaptures(let generic)? = plans.plan(for: context.load(as: UnsafeRawPointer.self)).tail else {
            Issue.record("not a generic context")
            return
        }
        #expect(generic.bindingCount == 1)
        let withBinding = plans.genericCaptureSlots(generic, object: context)
        // The same context read without its binding: τ_0_0 comes from capture 0's class, Signal<String>.
        var solver = CaptureSolver(plans: ObjectPlans(), generic: generic, known: [])
        let learnt = solver.run(object: context)
        #expect(withBinding.unreadable == nil && learnt.unreadable == nil, "\(learnt.unreadable ?? "")")
        #expect(solver.reads.count == 1)
        #expect(learnt.slots.map(\.offset) == withBinding.slots.map(\.offset))
        #expect(learnt.slots.map(\.path.text) == withBinding.slots.map(\.path.text))
        #expect(solver.end == withBinding.end)
    }

    @Test("a generic @isolated(any) closure stores its isolation where its descriptor puts the bindings: read when the shifted layout ends at the allocated size")
    func isolatedAny() throws {
        let holder = S.IsolatedHolder()
        let peer = S.Peer()
        S.isolated("a string long enough to need heap storage", peer, into: holder)
        let context = UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque()).load(fromByteOffset: 24, as: UInt.self)
        let pointer = try #require(UnsafeRawPointer(bitPattern: context))
        // Header 16, isolation (nil) 16, one binding (String's metadata), the String 16, the Peer 8.
        #expect(pointer.load(fromByteOffset: 16, as: UInt.self) == 0)
        func walk(size: Int) -> ObjectGraph {
            var contextRecord = record(address: context)
            contextRecord.size = size
            return HeapWalker().walk([record(holder), contextRecord, record(peer)])
        }
        let exact = walk(size: 16 + 16 + 8 + 16 + 8)
        #expect(exact.diagnostics.isEmpty, "\(exact.diagnostics)")
        let index = exact.nodes.firstIndex { $0.address == UInt64(context) }!
        #expect(exact.references.filter { $0.from == index }.map(\.label) == ["capture[1]"])
        // Without the size (or with another), the shift cannot be confirmed: diagnosed, never guessed.
        for size in [0, 80] {
            let graph = walk(size: size)
            #expect(graph.references.allSatisfy { $0.from != index })
            #expect(graph.diagnostics.map(\.typeName) == ["(closure context, 2 captures)"], "\(graph.diagnostics)")
        }
    }

    @Test("a context whose captures do not end at its allocated size is not read, and says so")
    func sizeGate() {
        let holder = S.Holder()
        let a = S.Peer()
        let b = S.Peer()
        S.first(a, b, into: holder)
        let exact = S.captures(holder, [a, b], size: 32)
        #expect(exact.references == ["capture[0] strong → Peer", "capture[1] strong → Peer"])
        #expect(exact.graph.diagnostics.isEmpty)
        let wrong = S.captures(holder, [a, b], size: 48)
        #expect(wrong.references.isEmpty)
        #expect(
            wrong.graph.diagnostics.map(\.reason) == [
                "captures laid out to 32 bytes do not fit the context's 48 allocated bytes: not read"
            ])
    }

    @Test("a diagnostic found while reading objects names the site of one of its own objects, not of another context of the same shape")
    func diagnosticSites() throws {
        let firstHolder = S.Holder()
        let secondHolder = S.Holder()
        let a = S.Peer()
        let b = S.Peer()
        S.first(a, b, into: firstHolder)
        S.second(a, b, into: secondHolder)
        // Same capture count, same reason (a size that does not fit), made by two functions: stacks 11 and 22.
        var first = record(address: S.context(firstHolder))
        first.size = 48
        first.stackID = 11
        var second = record(address: S.context(secondHolder))
        second.size = 48
        second.stackID = 22
        let graph = HeapWalker().walk([first, second, record(a), record(b)])
        #expect(graph.diagnostics.count == 2, "\(graph.diagnostics)")
        #expect(Set(graph.diagnostics.map(\.typeName)) == ["(closure context, 2 captures)"])
        #expect(graph.diagnostics.compactMap(\.stackID).sorted() == [11, 22])
        #expect(graph.diagnostics.allSatisfy { $0.objectCount == 1 })
    }
}
