// Issue 25, heap snapshots: live objects whose dominator structure is known exactly, and a leak.
//
// shapes: a cache owning 10 blobs (through its array); two caches sharing 3 blobs, each with 2 of its
//         own; a diamond (top → left, right → bottom); a chain of 5 links; a parent ⇄ child cycle held
//         by a global; and a leaked ring of two nodes. Every live shape hangs from a global.
// grown:  the same, with 50 more blobs in the cache (a later snapshot to compare with).
// fixed:  the shapes of `shapes`, the ring broken before exit: no leak.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case shapes, grown, fixed }

let mode = parseMode(Mode.self)

final class Blob {
    var a = 1, b = 2, c = 3, d = 4, e = 5, f = 6
}

final class Cache {
    var blobs: [Blob] = []
}

final class SharedBlob {
    var value = 7
}

final class OwnBlob {
    var value = 8
}

final class SharingCache {
    var entries: [AnyObject] = []
}

final class DiamondBottom {
    var payload = (1, 2, 3, 4)
}

final class DiamondSide {
    let bottom: DiamondBottom
    init(bottom: DiamondBottom) { self.bottom = bottom }
}

final class DiamondTop {
    let left: DiamondSide
    let right: DiamondSide
    init(bottom: DiamondBottom) {
        left = DiamondSide(bottom: bottom)
        right = DiamondSide(bottom: bottom)
    }
}

final class ChainLink {
    var next: ChainLink?
}

final class CycleParent {
    var child: CycleChild?
}

final class CycleChild {
    var parent: CycleParent?
}

final class RingNode {
    var next: RingNode?
}

let cache = Cache()
let firstSharing = SharingCache()
let secondSharing = SharingCache()
var diamond: DiamondTop?
var chain: ChainLink?
var cycleHolder: CycleParent?

@inline(never)
func fillCache(_ count: Int) {
    for _ in 0 ..< count {
        let blob = Blob()
        watch(blob)
        cache.blobs.append(blob)
    }
}

@inline(never)
func buildShapes() {
    fillCache(mode == .grown ? 60 : 10)
    for _ in 0 ..< 3 {
        let shared = SharedBlob()
        watch(shared)
        firstSharing.entries.append(shared)
        secondSharing.entries.append(shared)
    }
    for cache in [firstSharing, secondSharing] {
        for _ in 0 ..< 2 { cache.entries.append(OwnBlob()) }
    }
    diamond = DiamondTop(bottom: DiamondBottom())
    var head: ChainLink?
    for _ in 0 ..< 5 {
        let link = ChainLink()
        link.next = head
        head = link
    }
    chain = head
    let parent = CycleParent()
    parent.child = CycleChild()
    parent.child?.parent = parent
    cycleHolder = parent
}

@inline(never)
func makeRing() {
    let first = RingNode()
    let second = RingNode()
    first.next = second
    second.next = first  // store: grown,shapes RingNode.next
    watch(first)
    watch(second)
    if mode == .fixed { first.next = nil }
}

buildShapes()
makeRing()
print("snapshots: \(cache.blobs.count) blobs, \(firstSharing.entries.count + secondSharing.entries.count) entries, "
    + "chain \(chain != nil), diamond \(diamond != nil), cycle \(cycleHolder?.child != nil)")
finish(expectingAlive: (mode == .grown ? 60 : 10) + 3 + (mode == .fixed ? 0 : 2))
