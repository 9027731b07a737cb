// Known allocation counts, for allocation budgets and profiles: a loop making exactly N widgets (the
// last one kept), a closure context per call, and an array that grows by appending (one storage
// object per capacity change, the last one kept).
//
// Linked with LeakGraph (an in-process fixture). Modes:
// - `inprocess`: counts each shape with `LeakChecker.countingAllocations` and prints one line per
//   shape: `widgets made=1000 alive=1`, `adders made=500 alive=0`, `array made=G alive=1 growths=G`.
// - `profile`: makes the shapes without calling LeakGraph (for `leakgraph run --allocations`) and prints
//   `growths=G`.
//
// Every object escapes (a global, a returned closure, a returned array), so -O keeps each allocation.

import Glibc
import LeakGraph

final class Widget {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

nonisolated(unsafe) var lastWidget: Widget?
nonisolated(unsafe) var keptArray: [Int] = []
nonisolated(unsafe) var sum = 0

/// Makes exactly `count` widgets; only the last one stays alive.
@inline(never)
func makeWidgets(_ count: Int) {
    for serial in 0..<count {
        lastWidget = Widget(serial: serial)
    }
}

/// A closure over two values: its context is allocated here, once per call.
@inline(never)
func makeAdder(_ a: Int, _ b: Int) -> () -> Int {
    { a + b }
}

/// Calls `count` adders, each made by its own call.
@inline(never)
func callAdders(_ count: Int) {
    for index in 0..<count {
        sum &+= makeAdder(index, 1)()
    }
}

/// Appends `count` integers to an empty array, keeping it; returns how often its capacity changed.
@inline(never)
func growArray(_ count: Int) -> Int {
    var values: [Int] = []
    var growths = 0
    var capacity = values.capacity
    for value in 0..<count {
        values.append(value)
        if values.capacity != capacity {
            growths += 1
            capacity = values.capacity
        }
    }
    keptArray = values
    return growths
}

let widgetCount = Int(getenv("WIDGETS").map { String(cString: $0) } ?? "") ?? 1000
let adderCount = 500
let arrayCount = 10_000

switch CommandLine.arguments.dropFirst().first {
case "inprocess":
    do {
        let (_, widgets) = try LeakChecker.countingAllocations { makeWidgets(widgetCount) }
        print("widgets made=\(widgets.objects(ofType: "Widget")) alive=\(widgets.aliveObjects(ofType: "Widget")) total=\(widgets.objects)")
        let (_, adders) = try LeakChecker.countingAllocations { callAdders(adderCount) }
        print("adders made=\(adders.objects(ofType: "(closure context, 2 captures)")) alive=\(adders.aliveObjects) total=\(adders.objects)")
        let (growths, array) = try LeakChecker.countingAllocations { growArray(arrayCount) }
        print("array made=\(array.objects(ofType: "Swift._ContiguousArrayStorage<Swift.Int>")) alive=\(array.aliveObjects) total=\(array.objects) growths=\(growths)")
    } catch {
        print("cannot count: \(error)")
        exit(70)
    }
case "profile":
    makeWidgets(widgetCount)
    callAdders(adderCount)
    print("growths=\(growArray(arrayCount))")
default:
    print("usage: \(CommandLine.arguments[0]) inprocess|profile")
    exit(64)
}
