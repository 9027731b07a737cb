// The cycle goes through a property declared two superclasses up.
// Vehicle (garage) ← Motorcar (seats) ← Car (trailer). Car.garage ⇄ Garage.car; the car also holds a Trailer
// through its own field, which sits after the inherited ones.
// leak: 3 leaked objects — 1 root cycle {Car, Garage} holding the Trailer.
// fixed: Garage holds the car `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
    case .leak: garage.car = car  // store: leak Garage.car
    case .fixed: garage.weakCar = car
    }
}

makeCarInGarage()
finish(expectingAlive: mode == .leak ? 3 : 0)
