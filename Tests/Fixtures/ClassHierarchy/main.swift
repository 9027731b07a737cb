// Final and non-final classes, instances stored under a superclass type.
// - Keeper.pets: [Animal] holds a Puppy (final, subclass of the non-final Dog, subclass of the non-final
//   Animal); Puppy.keeper (declared in Animal) → Keeper; Puppy.toy (declared in Dog) → Toy;
//   Puppy.mother: Dog? → a Dog whose own `keeper` → Keeper as well.
// - Kennel (non-final, never subclassed) ⇄ Gate (final).
// leak: 7 leaked objects — 2 root cycles {Keeper, array storage, Puppy, Dog} holding the Toy, and
// {Kennel, Gate}.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
        puppy.keeper = keeper  // store: leak Puppy.keeper
        mother.keeper = keeper  // store: leak Dog.keeper
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
    case .leak: gate.kennel = kennel  // store: leak Gate.kennel
    case .fixed:
        gate.weakKennel = kennel
        keptAlive.append(kennel)
    }
}

makeKeeper()
makeKennel()
finish(expectingAlive: 6)
