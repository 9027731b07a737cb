// Row 4 of LEAK-PATTERNS: the cycle goes through a property declared two superclasses up.
// Vehicle (garage) ← Motorcar (seats) ← Car (trailer). Car.garage ⇄ Garage.car; the car also holds a Trailer
// through its own field, which sits after the inherited ones.
// leak: 3 leaked objects — 1 root cycle {Car, Garage} holding the Trailer.
// fixed: Garage holds the car `weak` — nothing leaks.

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

class Vehicle {
    var serial = 7
    var garage: Garage?
}

class Motorcar: Vehicle {
    var seats = 4
}

final class Car: Motorcar {
    var mileage = 0
    var trailer: Trailer?
}

final class Trailer {
    var load = 100
}

final class Garage {
    var car: Car?
    weak var weakCar: Car?
}

@inline(never)
func makeCarInGarage() {
    let car = Car()
    let garage = Garage()
    let trailer = Trailer()
    watch(car)
    watch(garage)
    watch(trailer)
    car.trailer = trailer
    car.garage = garage
    switch mode {
    case .leak: garage.car = car
    case .fixed: garage.weakCar = car
    }
}

makeCarInGarage()
finish(expectingAlive: mode == .leak ? 3 : 0)
