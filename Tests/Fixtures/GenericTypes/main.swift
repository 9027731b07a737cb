// Generic classes and structs with class type arguments.
// - Holder.pair: Pair<Left, Right> (a generic struct) with `first: Left`, `second: Right?`; Left.holder →
//   Holder, the Right is held.
// - Wrapper<Inner>.inner: Boxed<Inner> (a generic struct inside a generic class) holding an Inner (a class)
//   in `value` and in `items: [Inner]`; Inner.wrapper → Wrapper<Inner>.
// - Derived (subclass of the generic class Base<Probe>) keeps a Probe in the inherited `element: Element?`;
//   Probe.derived → Derived.
// - Choice.either: Either<Probe, Int> (a generic enum) = .left(Probe); Probe.choice → Choice.
// leak: 10 leaked objects — 4 root cycles {Holder, Left} holding the Right, {Wrapper<Inner>, Inner, array
// storage}, {Derived, Probe}, {Choice, Probe}.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live value must not look leaked.
var keptAlive: [AnyObject] = []

struct Pair<First, Second> {
    var first: First
    var second: Second?
}

final class Left {
    var holder: Holder?
    weak var weakHolder: Holder?
}

final class Right {
    var size = 1
}

final class Holder {
    var pair: Pair<Left, Right>?
}

struct Boxed<Value> {
    var count: Int
    var value: Value
    var items: [Value]
}

final class Wrapper<Value: AnyObject> {
    var inner: Boxed<Value>?
}

final class Inner {
    var wrapper: Wrapper<Inner>?
    weak var weakWrapper: Wrapper<Inner>?
}

class Base<Element> {
    var element: Element?
    var label = "base"
}

final class Derived: Base<Probe> {
    var extra = 3
}

final class Probe {
    var derived: Derived?
    weak var weakDerived: Derived?
    var choice: Choice?
    weak var weakChoice: Choice?
}

enum Either<L, R> {
    case left(L)
    case right(R)
}

final class Choice {
    var either: Either<Probe, Int> = .right(0)
}

@inline(never)
func makeHolder() {
    let holder = Holder()
    let left = Left()
    let right = Right()
    watch(holder)
    watch(left)
    watch(right)
    holder.pair = Pair(first: left, second: right)
    switch mode {
    case .leak: left.holder = holder  // store: leak Left.holder
    case .fixed:
        left.weakHolder = holder
        keptAlive.append(holder)
    }
}

@inline(never)
func makeWrapper() {
    let wrapper = Wrapper<Inner>()
    let inner = Inner()
    watch(wrapper)
    watch(inner)
    wrapper.inner = Boxed(count: 1, value: inner, items: [inner])
    switch mode {
    case .leak: inner.wrapper = wrapper  // store: leak Inner.wrapper
    case .fixed:
        inner.weakWrapper = wrapper
        keptAlive.append(wrapper)
    }
}

@inline(never)
func makeDerived() {
    let derived = Derived()
    let probe = Probe()
    watch(derived)
    watch(probe)
    derived.element = probe
    switch mode {
    case .leak: probe.derived = derived  // store: leak Probe.derived
    case .fixed:
        probe.weakDerived = derived
        keptAlive.append(derived)
    }
}

@inline(never)
func makeChoice() {
    let choice = Choice()
    let probe = Probe()
    watch(choice)
    watch(probe)
    choice.either = .left(probe)
    switch mode {
    case .leak: probe.choice = choice  // store: leak Probe.choice
    case .fixed:
        probe.weakChoice = choice
        keptAlive.append(choice)
    }
}

makeHolder()
makeWrapper()
makeDerived()
makeChoice()
finish(expectingAlive: 9)
