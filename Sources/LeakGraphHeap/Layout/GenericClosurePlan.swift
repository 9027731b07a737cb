/// What is needed to lay out a generic closure context: its captures' types mention generic
/// parameters whose metadata the context stores as "bindings" right before the captures.
///
/// Only the common shape is read: every metadata source names a depth-0 generic parameter `τ_0_i`
/// and says it is binding `i` (`B<i>`), so the first bindings are the parameters' metadata in order.
/// Capture types are then resolved against a stand-in generic context with that many parameters.
/// Other shapes are reported as unreadable rather than guessed.
final class GenericClosurePlan {
    let metadata: UnsafeRawPointer
    let descriptor: UnsafeRawPointer
    let firstCapture: Int
    let captureCount: Int
    let bindingCount: Int
    let parameterCount: Int

    init?(metadata: UnsafeRawPointer, descriptor: UnsafeRawPointer) {
        self.metadata = metadata
        self.descriptor = descriptor
        firstCapture = Int(metadata.uint32(at: 8))
        captureCount = Int(descriptor.uint32(at: 0))
        let sourceCount = Int(descriptor.uint32(at: 4))
        bindingCount = Int(descriptor.uint32(at: 8))
        // A parameter may have several sources (`B0` and `G0R0_`: also reachable through a captured
        // generic object); the binding source is the one used.
        var parameters = Set<Int>()
        var named = Set<Int>()
        for index in 0..<sourceCount {
            let record = 12 + captureCount * 4 + index * 8
            guard let parameterName = descriptor.relativeDirect(at: record).map(MangledName.init),
                let sourceName = descriptor.relativeDirect(at: record + 4).map(MangledName.init),
                let parameter = Self.depthZeroParameterIndex(parameterName.printable)
            else { return nil }
            named.insert(parameter)
            guard let binding = Self.bindingIndex(sourceName.printable) else { continue }
            guard parameter == binding else { return nil }
            parameters.insert(parameter)
        }
        guard named == parameters else { return nil }
        guard !parameters.isEmpty, parameters == Set(0..<parameters.count), parameters.count <= bindingCount,
            parameters.count <= Self.stands.count
        else { return nil }
        parameterCount = parameters.count
    }

    /// `x` is τ_0_0, `q_` τ_0_1, `q0_` τ_0_2, `q1_` τ_0_3 (docs/ABI/Mangling.rst, generic-param-index).
    static func depthZeroParameterIndex(_ name: String) -> Int? {
        if name == "x" { return 0 }
        if name == "q_" { return 1 }
        guard name.hasPrefix("q"), name.hasSuffix("_"), let n = Int(name.dropFirst().dropLast()) else { return nil }
        return n + 2
    }

    /// `B<i>` or `B<i>_`: the closure's i-th binding.
    static func bindingIndex(_ source: String) -> Int? {
        guard source.hasPrefix("B") else { return nil }
        var digits = source.dropFirst()
        if digits.hasSuffix("_") { digits = digits.dropLast() }
        return Int(digits)
    }

    /// The nominal type descriptor of a stand-in generic struct with `parameterCount` unconstrained
    /// parameters, used as the context that maps τ_0_i to the i-th generic argument.
    static func substitutionContext(parameterCount: Int) -> UnsafeRawPointer? {
        guard parameterCount >= 1, parameterCount <= stands.count else { return nil }
        return unsafeBitCast(stands[parameterCount - 1], to: UnsafeRawPointer.self).pointer(at: 8)
    }

    private static let stands: [Any.Type] = [
        GenericStandIn1<Int>.self, GenericStandIn2<Int, Int>.self, GenericStandIn3<Int, Int, Int>.self,
        GenericStandIn4<Int, Int, Int, Int>.self,
    ]
}

struct GenericStandIn1<A> {}
struct GenericStandIn2<A, B> {}
struct GenericStandIn3<A, B, C> {}
struct GenericStandIn4<A, B, C, D> {}
