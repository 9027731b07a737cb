// The linked ring from the Mac & i article: ten DummyObjects, each pointing to the next, the last one
// pointing back to the first. Once `makeRing` returns nothing refers to the ring any more, yet every
// object keeps the next one alive: ten objects leak, forming one retain cycle.
//
//     LinkedRing            leaks the ring
//     LinkedRing --fixed    the last link is `weak`, so the whole ring is freed

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class DummyObject {
    let name: String
    var next: DummyObject?
    weak var weakNext: DummyObject?

    init(name: String) {
        self.name = name
    }

    deinit {
        freedObjects += 1
    }
}

nonisolated(unsafe) var freedObjects = 0

/// Builds a ring of `count` objects; with `fixed`, the link that closes the ring is weak.
@inline(never)
func makeRing(count: Int, fixed: Bool) {
    let first = DummyObject(name: "object 1")
    var last = first
    for number in 2...count {
        let object = DummyObject(name: "object \(number)")
        last.next = object
        last = object
    }
    if fixed {
        last.weakNext = first
    } else {
        last.next = first
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.isEmpty || arguments == ["--fixed"] else {
    print("usage: LinkedRing [--fixed]")
    exit(64)
}
let fixed = arguments == ["--fixed"]
makeRing(count: 10, fixed: fixed)
print("Built a ring of 10 DummyObjects (\(fixed ? "closed by a weak link" : "closed by a strong link")); "
    + "\(freedObjects) of them were freed.")
