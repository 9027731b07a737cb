// Rows 1 and 4 of LEAK-PATTERNS: final and non-final classes, instances stored under a superclass type.
// - Keeper.pets: [Animal] holds a Puppy (final, subclass of the non-final Dog, subclass of the non-final
//   Animal); Puppy.keeper (declared in Animal) → Keeper; Puppy.toy (declared in Dog) → Toy;
//   Puppy.mother: Dog? → a Dog whose own `keeper` → Keeper as well.
// - Kennel (non-final, never subclassed) ⇄ Gate (final).
// leak: 7 leaked objects — 2 root cycles {Keeper, array storage, Puppy, Dog} holding the Toy, and
// {Kennel, Gate}.
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

/// In the fixed variant the shapes stay alive, held by this global: a live object must not look leaked.
var keptAlive: [AnyObject] = []

class Animal {
    var name: String
    var keeper: Keeper?
    weak var weakKeeper: Keeper?

    init(name: String) {
        self.name = name
    }
}

class Dog: Animal {
    var toy: Toy?
}

final class Puppy: Dog {
    var mother: Dog?
}

final class Toy {
    var squeaks = 3
}

final class Keeper {
    var pets: [Animal] = []
}

class Kennel {
    var gate: Gate?
}

final class Gate {
    var kennel: Kennel?
    weak var weakKennel: Kennel?
}

@inline(never)
func makeKeeper() {
    let keeper = Keeper()
    let puppy = Puppy(name: "rex")
    let mother = Dog(name: "lady")
    let toy = Toy()
    watch(keeper)
    watch(puppy)
    watch(mother)
    watch(toy)
    puppy.toy = toy
    puppy.mother = mother
    keeper.pets.append(puppy)
    switch mode {
    case .leak:
        puppy.keeper = keeper
        mother.keeper = keeper
    case .fixed:
        puppy.weakKeeper = keeper
        mother.weakKeeper = keeper
        keptAlive.append(keeper)
    }
}

@inline(never)
func makeKennel() {
    let kennel = Kennel()
    let gate = Gate()
    watch(kennel)
    watch(gate)
    kennel.gate = gate
    switch mode {
    case .leak: gate.kennel = kennel
    case .fixed:
        gate.weakKennel = kennel
        keptAlive.append(kennel)
    }
}

makeKeeper()
makeKennel()
finish(expectingAlive: 6)
