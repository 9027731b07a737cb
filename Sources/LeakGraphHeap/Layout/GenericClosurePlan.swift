import Synchronization

/// What is needed to lay out a generic closure context: its captures' types mention generic
/// parameters whose metadata the context stores as "bindings" right before the captures.
///
/// Every generic parameter a capture type can mention must be bound: the capture descriptor's
/// metadata sources say, for each parameter (`τ_d_i`, mangled `x`, `q_`, `q0_`, `qd__`, …), where
/// its metadata is — binding `B<n>` here (another source, such as a generic argument of a captured
/// object's class, may name it too). Parameters of any number and of enclosing generic contexts
/// (depth 1 and more, `qd__`) are read: capture types are resolved in a generic environment built
/// for the context's shape (``environment``), with the bindings reordered into the parameters'
/// order. Shapes with an unbound parameter are reported as unreadable rather than guessed.
final class GenericClosurePlan {
    let metadata: UnsafeRawPointer
    let descriptor: UnsafeRawPointer
    let firstCapture: Int
    let captureCount: Int
    let bindingCount: Int
    /// The number of generic parameters, all depths together.
    let parameterCount: Int
    /// For each parameter in environment order (depth 0 first, then by index), its binding.
    let bindingOfParameter: [Int]
    /// The generic environment the capture types are resolved in, tagged for
    /// `lg_type_by_mangled_name` (its address plus 1; see ``environment(levels:)``).
    let context: UnsafeRawPointer

    init?(metadata: UnsafeRawPointer, descriptor: UnsafeRawPointer) {
        self.metadata = metadata
        self.descriptor = descriptor
        firstCapture = Int(metadata.uint32(at: 8))
        captureCount = Int(descriptor.uint32(at: 0))
        let sourceCount = Int(descriptor.uint32(at: 4))
        bindingCount = Int(descriptor.uint32(at: 8))
        // A parameter may have several sources (`B0` and `G0R0_`: also reachable through a captured
        // generic object); the binding source is the one used.
        var binding: [GenericParameter: Int] = [:]
        var named = Set<GenericParameter>()
        for index in 0..<sourceCount {
            let record = 12 + captureCount * 4 + index * 8
            guard let parameterName = descriptor.relativeDirect(at: record).map(MangledName.init),
                let sourceName = descriptor.relativeDirect(at: record + 4).map(MangledName.init),
                let parameter = GenericParameter(mangled: parameterName.printable)
            else { return nil }
            named.insert(parameter)
            guard let bound = Self.bindingIndex(sourceName.printable) else { continue }
            guard bound < bindingCount, binding[parameter] == nil || binding[parameter] == bound else { return nil }
            binding[parameter] = bound
        }
        guard !named.isEmpty, Set(binding.keys) == named else { return nil }
        // Every depth up to the deepest, and every index at each, must be bound.
        let maxDepth = named.map(\.depth).max()!
        var levels: [Int] = []
        var order: [Int] = []
        for depth in 0...maxDepth {
            let count = named.filter { $0.depth == depth }.map { $0.index + 1 }.max() ?? 0
            for index in 0..<count {
                guard let bound = binding[GenericParameter(depth: depth, index: index)] else { return nil }
                order.append(bound)
            }
            levels.append(count)
        }
        guard let environment = Self.environment(levels: levels) else { return nil }
        parameterCount = order.count
        bindingOfParameter = order
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
struct GenericParameter: Hashable {
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
