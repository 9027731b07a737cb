// Rows 5–6 of LEAK-PATTERNS: generic classes and structs with class type arguments.
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

// MARK: - Fixture plumbing (the same in every fixture)
//
// The shape is built by an `@inline(never)` function that returns, so nothing of it is left on the stack,
// and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

enum Mode: String { case leak, fixed }

let mode: Mode = {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        print("usage: \(CommandLine.arguments[0]) leak|fixed")
        exit(64)
    }
    return mode
}()

struct WeakObject { weak var object: AnyObject? }
let checking = getenv("FIXTURE_CHECK") != nil
var watched: [WeakObject] = []

@inline(never)
func watch(_ object: AnyObject) {
    if checking { watched.append(WeakObject(object: object)) }
}

func finish(expectingAlive expected: Int) {
    guard checking else { return }
    let alive = watched.filter { $0.object != nil }.count
    print("fixture check: \(alive) of \(watched.count) watched objects alive, expected \(expected)")
    if alive != expected { exit(3) }
}

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
    case .leak: left.holder = holder
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
    case .leak: inner.wrapper = wrapper
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
    case .leak: probe.derived = derived
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
    case .leak: probe.choice = choice
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
