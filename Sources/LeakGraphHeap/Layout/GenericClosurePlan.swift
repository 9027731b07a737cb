import Synchronization

/// What is needed to lay out a closure context whose capture types mention generic parameters: the
/// capture descriptor parsed once per context metadata (include/swift/RemoteInspection/Records.h,
/// `CaptureDescriptor`: capture count, metadata source count, binding count, the captures' mangled
/// types, then one (parameter, source) pair of mangled names per source).
///
/// A parameter's metadata is found where the descriptor's metadata sources say
/// (include/swift/RemoteInspection/MetadataSource.h): `B<i>` the i-th closure binding, stored in the
/// context before the captures; `R<k>` a captured object's class, `M<k>` a captured metatype, and
/// `G<i><source>_` the i-th generic argument of another source's metadata, at any depth. `R` and `M`
/// number the closure's *parameters*, its own arguments first (`{ (value: A) in … signal … }`: `R1` is
/// capture 0), so the index alone does not say which capture it is, and a source can even be an
/// argument the context does not store. The walk therefore follows them by type instead: a capture whose
/// type is a class with generic arguments (`Signal<A>`, `Optional<Signal<A>>`) or a thick metatype of one
/// gives, once it is laid out, the metadata of every parameter its arguments spell, read from the
/// captured object's class (the level of its superclass chain whose descriptor is that class) and
/// matched argument by argument, nested generic types and tuples included
/// (``ObjectPlans/genericCaptureSlots(_:object:size:)``). What the sources name but no capture can give stays
/// unknown: captures whose layout needs it are diagnosed.
///
/// Capture types are resolved in a generic environment built for the context's parameters
/// (``environment``); parameters of any number and depth (`qd__`: a generic method's parameter in a
/// generic type) are read.
final class GenericClosurePlan {
    let metadata: UnsafeRawPointer
    let descriptor: UnsafeRawPointer
    let firstCapture: Int
    let captureCount: Int
    let bindingCount: Int
    /// The captures' types, parsed (``MangledTypeTree``) where the parser accepts them.
    let captures: [Capture]
    /// The generic parameters, environment order (depth 0 first, then by index): every parameter up to
    /// the deepest and highest one a source or a capture type names.
    let parameters: [GenericParameter]
    /// Position of each parameter in ``parameters``.
    let position: [GenericParameter: Int]
    /// The closure-binding sources, in the descriptor's order: the type whose metadata the binding holds
    /// (a parameter, or a type made of parameters, such as `[A]`, matched argument by argument).
    let bindingSources: [(type: MangledTypeTree.Node, binding: Int)]
    /// The bindings a source names: type metadata (the others are witness tables), ascending.
    var metadataBindings: [Int] { Array(Set(bindingSources.map(\.binding))).sorted() }
    /// The generic environment the capture types are resolved in, tagged for `lg_type_by_mangled_name`
    /// (its address plus 1; see ``environment(levels:)``).
    let context: UnsafeRawPointer

    /// One capture of the context.
    struct Capture {
        let name: MangledName
        let tree: MangledTypeTree.Node?
    }

    /// `nil` when the descriptor's records cannot be read (a source's type that cannot be parsed, a
    /// binding out of range) or it names no parameter at all.
    init?(metadata: UnsafeRawPointer, descriptor: UnsafeRawPointer) {
        self.metadata = metadata
        self.descriptor = descriptor
        firstCapture = Int(metadata.uint32(at: 8))
        captureCount = Int(descriptor.uint32(at: 0))
        let sourceCount = Int(descriptor.uint32(at: 4))
        bindingCount = Int(descriptor.uint32(at: 8))
        guard captureCount < 4096, sourceCount < 4096, bindingCount < 4096 else { return nil }
        var captures: [Capture] = []
        var named = Set<GenericParameter>()
        for index in 0..<captureCount {
            guard let name = descriptor.relativeDirect(at: 12 + index * 4).map(MangledName.init) else { return nil }
            let tree = MangledTypeTree.parse(name)
            named.formUnion(tree?.parameters ?? [])
            captures.append(Capture(name: name, tree: tree))
        }
        self.captures = captures
        var bindingSources: [(type: MangledTypeTree.Node, binding: Int)] = []
        for index in 0..<sourceCount {
            let record = 12 + captureCount * 4 + index * 8
            guard let typeName = descriptor.relativeDirect(at: record).map(MangledName.init),
                let sourceName = descriptor.relativeDirect(at: record + 4).map(MangledName.init),
                let type = MangledTypeTree.parse(typeName)
            else { return nil }
            named.formUnion(type.parameters)
            // Other sources (`R`, `M`, `G…`) are followed by the captures' types (see the type's discussion).
            guard let bound = Self.bindingIndex(sourceName.printable) else { continue }
            guard bound < bindingCount else { return nil }
            bindingSources.append((type, bound))
        }
        guard !named.isEmpty else { return nil }
        self.bindingSources = bindingSources
        // Every index up to the highest named at each depth, and every depth up to the deepest.
        let maxDepth = named.map(\.depth).max()!
        var levels: [Int] = []
        var parameters: [GenericParameter] = []
        for depth in 0...maxDepth {
            let count = named.filter { $0.depth == depth }.map { $0.index + 1 }.max() ?? 0
            for index in 0..<count { parameters.append(GenericParameter(depth: depth, index: index)) }
            levels.append(count)
        }
        guard let environment = Self.environment(levels: levels) else { return nil }
        self.parameters = parameters
        position = Dictionary(uniqueKeysWithValues: parameters.enumerated().map { ($1, $0) })
        context = environment + 1
    }

    /// `B<i>` or `B<i>_`: the closure's i-th binding.
    static func bindingIndex(_ source: String) -> Int? {
        guard source.hasPrefix("B") else { return nil }
        var digits = source.dropFirst()
        if digits.hasSuffix("_") { digits = digits.dropLast() }
        return Int(digits)
    }

    /// Environments made so far (their addresses), by their parameter counts per depth: made once,
    /// kept for good. Behind a lock: walks outside a frozen heap (tests, `captureGraph`) may run at once.
    private static let environments = Mutex<[[Int]: UInt]>([:])

    /// A runtime generic environment (`TargetGenericEnvironment`, include/swift/ABI/Metadata.h) with
    /// `levels[d]` unconstrained type parameters at depth `d`, each a key argument, and no
    /// requirements: flags (the number of levels; no requirements), the cumulative parameter counts
    /// per level (`uint16_t` each), one `GenericParamDescriptor` byte per parameter (0x80: a type
    /// parameter with a key argument). The generic arguments resolved against it are the parameters'
    /// metadata in the same order.
    static func environment(levels: [Int]) -> UnsafeRawPointer? {
        environments.withLock { made in
            if let address = made[levels] { return UnsafeRawPointer(bitPattern: address) }
            guard let environment = makeEnvironment(levels: levels) else { return nil }
            made[levels] = UInt(bitPattern: environment)
            return environment
        }
    }

    /// Allocates and fills the environment ``environment(levels:)`` describes; never freed.
    private static func makeEnvironment(levels: [Int]) -> UnsafeRawPointer? {
        let total = levels.reduce(0, +)
        guard !levels.isEmpty, levels.count < 0x1000, total > 0, total < 0x1_0000 else { return nil }
        let size = 4 + 2 * levels.count + total
        let memory = UnsafeMutableRawPointer.allocate(byteCount: (size + 7) & ~7, alignment: 8)
        memory.storeBytes(of: UInt32(levels.count), as: UInt32.self)
        var cumulative = 0
        for (level, count) in levels.enumerated() {
            cumulative += count
            memory.storeBytes(of: UInt16(cumulative), toByteOffset: 4 + 2 * level, as: UInt16.self)
        }
        for parameter in 0..<total {
            memory.storeBytes(of: UInt8(0x80), toByteOffset: 4 + 2 * levels.count + parameter, as: UInt8.self)
        }
        return UnsafeRawPointer(memory)
    }
}

/// A generic parameter `τ_depth_index` as a metadata source names it (docs/ABI/Mangling.rst,
/// generic-param-index): `x` is τ_0_0, `q_` τ_0_1, `q<n>_` τ_0_(n+2); `qd<M><N>` is τ_(M+1)_N, with
/// `M` and `N` each an INDEX (`_` is 0, `<k>_` is k+1).
struct GenericParameter: Hashable, Comparable {
    var depth: Int
    var index: Int

    init(depth: Int, index: Int) {
        self.depth = depth
        self.index = index
    }

    init?(mangled name: String) {
        if name == "x" {
            self.init(depth: 0, index: 0)
            return
        }
        guard name.hasPrefix("q") else { return nil }
        var rest = Substring(name.dropFirst())
        if rest.hasPrefix("d") {
            rest = rest.dropFirst()
            guard let depth = Self.index(&rest), let index = Self.index(&rest), rest.isEmpty else { return nil }
            self.init(depth: depth + 1, index: index)
        } else {
            guard let index = Self.index(&rest), rest.isEmpty else { return nil }
            self.init(depth: 0, index: index + 1)
        }
    }

    static func < (lhs: GenericParameter, rhs: GenericParameter) -> Bool {
        (lhs.depth, lhs.index) < (rhs.depth, rhs.index)
    }

    /// `τ_d_i`, as diagnostics name it.
    var text: String { "τ_\(depth)_\(index)" }

    /// Reads one INDEX from the front of `text`: `_` is 0, `<k>_` is k+1.
    private static func index(_ text: inout Substring) -> Int? {
        guard let underscore = text.firstIndex(of: "_") else { return nil }
        let digits = text[..<underscore]
        text = text[text.index(after: underscore)...]
        if digits.isEmpty { return 0 }
        guard let value = Int(digits) else { return nil }
        return value + 1
    }
}
