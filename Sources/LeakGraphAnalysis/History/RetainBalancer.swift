import LeakGraphModel

/// Cancels the balanced retain/release pairs of one object's history and says which +1s are left —
/// the ones its strong references hold — and which of them are certain.
///
/// Swift's retains and releases follow ownership: a +1 (a retain, or the allocation) belongs to the
/// function that made it, or — when that function hands it back (an initializer, a getter, a function
/// returning the object) — to the first caller that does not; that function releases it, hands it to
/// a callee, or stores it. So a release is matched with a +1 of the same thread whose **owner** is the
/// releasing function or one of its callers' chain (or whose owner's call of the releasing function is the
/// releasing frame: a release the compiler made a tail call shows up in the caller). Among several, the
/// latest (last in, first out). A release that matches no owner (a field overwritten or destroyed
/// elsewhere) takes the latest +1 left, and every +1 it could have taken becomes an alternative.
///
/// What is left unmatched is what the object's strong references hold. A survivor is certain when no
/// release could have taken it instead of the +1 it took from another site: swapping the two would leave
/// the other site standing.
///
/// The method and what it was measured on: docs/how-it-works.md ("Where a reference was stored"), beside
/// a balancer that pairs by equal stacks instead (``Pairing/equalStacks``, Mozilla's refcount balancer's
/// rule), kept to measure the two side by side.
struct RetainBalancer {
    /// How a release finds the +1 it balances.
    enum Pairing: Sendable {
        /// By ownership (the releasing function owns the +1), the latest; a field's release takes any.
        case ownership
        /// With the +1 whose stack names the same functions, the latest (Mozilla's balancer pairs AddRef and
        /// Release calls with matching stacks); a release no +1 matches balances nothing.
        case equalStacks
    }

    /// One +1 or −1 of the history (an event of count n is n units).
    struct Unit {
        var event: RetainEvent
        var frames: [HistoryFrame]
        /// For a +1: the index in `frames` of its owner (the frame named as its site); nil when unknown.
        var owner: Int?
        /// The functions from the owner outward (for a +1), or the user functions from the innermost
        /// outward (for a −1).
        var chain: [String]
        /// For a −1: it gives up a stored reference (made in a setter or `modify`, a `deinit` or a destroy,
        /// before any plain frame of the program's own code), so it may take any +1 left, whoever owned it.
        var isFieldRelease = false
    }

    /// What balancing left.
    struct Outcome {
        /// The +1s no release took.
        var survivors: [Unit]
        /// Per survivor (same order): other +1s that could be standing in its place.
        var alternatives: [[Unit]]
    }

    let typeName: String
    var pairing: Pairing = .ownership

    /// Splits events into units and finds each +1's owner.
    func units(of history: RetainHistory, frames: (UInt32) -> [HistoryFrame]) -> (plus: [Unit], minus: [Unit]) {
        var plus: [Unit] = []
        var minus: [Unit] = []
        for event in history.events where event.kind != .write {
            let stack = event.stackID.map(frames) ?? []
            if event.kind == .release {
                let chain = stack.filter(\.isUserCode).map(\.function)
                var field = false
                for frame in stack {
                    if frame.isDestroying
                        || (frame.isUserCode && frame.isAccessorOrThunk && !frame.function.hasPrefix("thunk"))
                    {
                        field = true
                        break
                    }
                    if frame.isUserCode && !frame.isAccessorOrThunk { break }
                }
                for _ in 0..<event.count {
                    minus.append(Unit(event: event, frames: stack, owner: nil, chain: chain, isFieldRelease: field))
                }
            } else {
                let owner = Self.owner(in: stack, typeName: typeName)
                let chain = owner.map { stack[$0...].map(\.function) } ?? []
                for _ in 0..<event.count { plus.append(Unit(event: event, frames: stack, owner: owner, chain: chain)) }
            }
        }
        return (plus, minus)
    }

    /// The frame that owns a +1 made with `frames`: the first frame of the program's own code that is not
    /// an accessor or thunk and cannot return the object to its caller.
    static func owner(in frames: [HistoryFrame], typeName: String) -> Int? {
        for (index, frame) in frames.enumerated() {
            guard frame.isUserCode, !frame.isAccessorOrThunk else { continue }
            if frame.mayReturn(typeName) { continue }
            return index
        }
        return nil
    }

    /// Whether release `minus` can be the one that balances `plus` by ownership.
    static func owns(_ plus: Unit, _ minus: Unit) -> Bool {
        guard plus.event.sequence < minus.event.sequence, plus.event.thread == minus.event.thread,
            let owner = plus.owner, let releasing = minus.chain.first
        else { return false }
        if minus.chain.contains(plus.frames[owner].function) { return true }
        // A release made as a tail call at the end of the owner: the return address is in its caller,
        // right after the call of the owner — the frame above the owner in the +1's stack.
        if owner + 1 < plus.frames.count {
            let caller = plus.frames[owner + 1]
            if let first = minus.frames.first(where: \.isUserCode), first.function == releasing,
                caller.function == first.function, caller.line == first.line, caller.line != nil
            {
                return true
            }
        }
        return false
    }

    /// Cancels pairs, oldest release first.
    func balance(plus: [Unit], minus: [Unit]) -> Outcome {
        var taken = [Bool](repeating: false, count: plus.count)
        // For each +1 that a release took: the +1s the release could have taken instead.
        var couldBe: [[Int]] = Array(repeating: [], count: plus.count)
        for release in minus {
            let open = plus.indices.filter { !taken[$0] && plus[$0].event.sequence < release.event.sequence }
            let pool: [Int]
            switch pairing {
            case .ownership:
                let owned = release.isFieldRelease ? [] : open.filter { Self.owns(plus[$0], release) }
                pool = owned.isEmpty ? open : owned
            case .equalStacks:
                let functions = release.frames.map(\.function)
                pool = open.filter { plus[$0].frames.map(\.function) == functions }
            }
            guard let chosen = pool.last else { continue }
            taken[chosen] = true
            couldBe[chosen] = pool.filter { $0 != chosen }
        }
        var survivors: [Unit] = []
        var alternatives: [[Unit]] = []
        for index in plus.indices where !taken[index] {
            survivors.append(plus[index])
            // A +1 taken by a release that could have taken this survivor instead could be standing here.
            let others = plus.indices.filter { taken[$0] && couldBe[$0].contains(index) }.map { plus[$0] }
            alternatives.append(others)
        }
        return Outcome(survivors: survivors, alternatives: alternatives)
    }
}
