// Found running the swift-argument-parser 1.8.2 test suite (release): the leak check itself crashed
// ("Swift/Integers.swift: Fatal error: Not enough bits to represent the passed value", SIGILL) in
// ValueLayouts.tupleSlots, on tuple payloads such as `(Swift.Character, allowingJoined: Swift.Bool)` and
// `(literal: Swift.String, message: Swift.String)`. One run in three; the others read wrong offsets.
//
// Cause: in tuple type metadata an element is { Type pointer, Offset }, and Offset is a `StoredSize`
// (8 bytes) only on Apple platforms; elsewhere it is a `uint32_t` followed by 4 bytes of padding
// (include/swift/ABI/Metadata.h, TargetTupleTypeMetadata::Element). The runtime never writes that
// padding. Tuple metadata made once the runtime's static initial metadata pool is used up lives in
// malloc'd pools, so the padding holds whatever the memory held before: reading the offset as a full
// word gives `garbage << 32 | offset` — a trap in `Int(_:)` when bit 63 is set, a wildly wrong offset
// otherwise. (Measured here: after ~360 tuple types, most new tuple metadata has non-zero padding.)
//
// This program uses up the initial pool with 1,000 tuple types made after dirtying freed memory, so the
// metadata of `(owner: Owner, count: Int)` — the type of the field that closes the cycle — is made in a
// malloc'd pool with garbage padding (FIXTURE_CHECK prints whether it is).
//
// leak: Owner ⇄ Holder through the tuple field `pair.owner` — 2 leaked objects, 1 root cycle, the
//       edge labelled `pair.owner`; the check must not crash.
// fixed: Owner.holder is weak — nothing leaks, and no crash.
// In both modes a global keeps one more Holder (and its Owner) alive, so its tuple field is always read.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - Used-up metadata pool, dirty memory

/// Frees memory filled with 0xFF, so that the runtime's next metadata pools come from dirty memory.
@inline(never)
func dirtyFreedMemory() {
    var blocks: [UnsafeMutableRawPointer] = []
    for size in [1024, 4096, 16 * 1024, 16 * 1024 + 64, 32 * 1024, 64 * 1024] {
        for _ in 0..<16 {
            let block = malloc(size)!
            memset(block, 0xFF, size)
            blocks.append(block)
        }
    }
    for block in blocks { free(block) }
}

@inline(never)
func metadata<T>(of type: T.Type) -> UnsafeRawPointer {
    unsafeBitCast(T.self as Any.Type, to: UnsafeRawPointer.self)
}

/// Makes `depth` new tuple types, `(T, flag: Bool)`, `((T, flag: Bool), flag: Bool)`, …
@inline(never)
func makeTupleTypes<T>(_ type: T.Type, depth: Int) -> Int {
    _ = metadata(of: T.self)
    return depth == 0 ? 0 : 1 + makeTupleTypes((T, flag: Bool).self, depth: depth - 1)
}

// MARK: - The shape

final class Owner {
    var holder: Holder?
    weak var weakHolder: Holder?
}

final class Holder {
    var pair: (owner: Owner, count: Int)
    init(owner: Owner) { pair = (owner, 1) }
}

@inline(never)
func makePair() {
    let owner = Owner()
    let holder = Holder(owner: owner)
    watch(owner)
    watch(holder)
    switch mode {
    case .leak: owner.holder = holder
    case .fixed: owner.weakHolder = holder
    }
}

dirtyFreedMemory()
_ = makeTupleTypes(Int.self, depth: 1_000)
let pairType = metadata(of: (owner: Owner, count: Int).self)
if checking {
    // Element 0 of the tuple metadata: its Offset word at +32 (type pointer at +24).
    let word = pairType.load(fromByteOffset: 32, as: UInt.self)
    print("pair.owner offset word: 0x\(String(word, radix: 16)) (padding \(word >> 32 == 0 ? "clean" : "dirty"))")
}
makePair()
// A live Holder reached from a global, in both modes: its tuple field is read by every check.
let liveHolder = Holder(owner: Owner())
finish(expectingAlive: mode == .leak ? 2 : 0)
