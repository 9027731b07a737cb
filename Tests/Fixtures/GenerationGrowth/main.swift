// Issue 13, growth between generations: an image cache that only grows, measured in-process with
// `LeakChecker.markGeneration()` and `Generation.growth()`.
//
// grow:  10 images are cached before the mark, 100 after it; transient objects made meanwhile are
//        freed. The growth lists `CachedImage × 100` created in `ImageCache.insert(_:)` (and their
//        pixel arrays), nothing for the images cached before the mark or the transient objects.
// clear: the same, but the cache is emptied before measuring: no `CachedImage` grew.
//
// Prints the growth's text, then its JSON on one line after `GROWTH-JSON `.

import Foundation
import LeakGraph
import LeakGraphReport

enum Mode: String { case grow, clear }

guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
    print("usage: GenerationGrowth grow|clear")
    exit(64)
}

final class CachedImage {
    let name: String
    let pixels: [UInt8]
    init(name: String, size: Int) {
        self.name = name
        self.pixels = [UInt8](repeating: 7, count: size)
    }
}

final class ImageCache {
    private var images: [String: CachedImage] = [:]

    @inline(never)
    func insert(_ name: String) {
        images[name] = CachedImage(name: name, size: 64)
    }

    func removeAll() {
        images.removeAll()
    }

    var count: Int { images.count }
}

final class Transient {
    var value = 0
}

@inline(never)
func churn() -> Int {
    var total = 0
    for index in 0 ..< 50 {
        let object = Transient()
        object.value = index
        total += object.value
    }
    return total
}

try LeakChecker.startRecording()
let cache = ImageCache()
for index in 0 ..< 10 {
    cache.insert("before-\(index)")
}
let mark = LeakChecker.markGeneration()
for index in 0 ..< 100 {
    cache.insert("after-\(index)")
}
let churned = churn()
if mode == .clear {
    cache.removeAll()
}
let growth = mark.growth()
print(growth.text)
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
print("GROWTH-JSON " + String(decoding: try encoder.encode(growth), as: UTF8.self))
exit(churned == 1225 && cache.count == (mode == .grow ? 110 : 0) ? 0 : 1)
