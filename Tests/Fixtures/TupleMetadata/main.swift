// Tuple fields, read through tuple metadata the runtime builds while the walk runs,
// in a process whose heap has been used (freed memory full of 0xAB bytes, a few hundred metadata records
// instantiated first). On Linux a tuple element's offset is a 32-bit field followed by 4 bytes of padding
// that the runtime never writes; the walk must read the 32-bit offset only.
// - Pipe.ends: (count: Int, sink: Sink?, label: String) = (…, sink, …); Sink.pipe → Pipe.
// - Rack.slots: (a: Int8, b: Sink?, c: Int16, d: Sink?) with two Sinks; the first Sink's rack → Rack.
// leak: 5 leaked objects — 2 root cycles {Pipe, Sink} and {Rack, Sink} holding the other Sink.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live tuple must not look leaked.
var keptAlive: [AnyObject] = []

final class Sink {
    var pipe: Pipe?
    weak var weakPipe: Pipe?
    var rack: Rack?
    weak var weakRack: Rack?
}

final class Pipe {
    var ends: (count: Int, sink: Sink?, label: String) = (0, nil, "")
}

final class Rack {
    var slots: (a: Int8, b: Sink?, c: Int16, d: Sink?) = (0, nil, 0, nil)
}

/// Leaves freed heap blocks full of 0xAB, so memory the runtime takes later is not zero.
@inline(never)
func dirtyTheHeap() {
    for size in [1 << 12, 1 << 14, 1 << 16, 1 << 18] {
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<64 {
            let block = malloc(size)!
            memset(block, 0xAB, size)
            blocks.append(block)
        }
        blocks.forEach { free($0) }
    }
}

/// Instantiates `depth` tuple metadata records ((Int, Int8), Int8)…, so the runtime's metadata allocator
/// moves on from its initial (zeroed) pool to pools taken from the heap.
func nest<T>(_ type: T.Type, depth: Int) -> Any.Type {
    depth == 0 ? type : nest((T, Int8).self, depth: depth - 1)
}

@inline(never)
func makePipe() {
    let pipe = Pipe()
    let sink = Sink()
    watch(pipe)
    watch(sink)
    pipe.ends = (1, sink, "main")
    switch mode {
    case .leak: sink.pipe = pipe  // store: leak Sink.pipe
    case .fixed:
        sink.weakPipe = pipe
        keptAlive.append(pipe)
    }
}

@inline(never)
func makeRack() {
    let rack = Rack()
    let first = Sink()
    let second = Sink()
    watch(rack)
    watch(first)
    watch(second)
    rack.slots = (1, first, 2, second)
    switch mode {
    case .leak: first.rack = rack  // store: leak Sink.rack
    case .fixed:
        first.weakRack = rack
        keptAlive.append(rack)
    }
}

dirtyTheHeap()
// The depth is not a constant, so -O cannot specialize the recursion away.
let nested = nest(Int.self, depth: 300 * CommandLine.arguments.count)
if checking { print("nested \(String(describing: nested).count) characters deep") }
makePipe()
makeRack()
finish(expectingAlive: 5)
