// Issue 12, item 4: `InlineArray` (metadata kind fixed array, 0x308) and extended existentials
// (`any Repository<Product>`, kind 0x307), read from their metadata.
//
// leak:   a `Catalog` whose `repository: (any Repository<Product>)?` holds an inline `ProductRepository`
//         pointing back at it (1 object, a self-loop through the existential); a `Catalog` whose
//         `archive` holds a `LargeRepository` too big for the buffer (Catalog ⇄ its box); a `Catalog` whose
//         `cache: (any Cache<Int>)?` (class-constrained) is a `ProductCache` pointing back (2 objects); a
//         `Catalog` whose `pinned: InlineArray<3, Catalog?>` holds itself at index 1 (1 object).
//         4 root cycles, 6 leaked objects.
// fixed:  the back references are `weak`, and `pinned` holds another, unreferenced `Catalog` — nothing
//         leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

final class Product {}

protocol Repository<Item> {
    associatedtype Item
    func all() -> [Item]
}

protocol Cache<Key>: AnyObject {
    associatedtype Key
}

struct ProductRepository: Repository {
    var catalog: Catalog?
    weak var weakCatalog: Catalog?
    func all() -> [Product] { [] }
}

struct LargeRepository: Repository {
    var pages = 0, size = 0, offset = 0
    var catalog: Catalog?
    weak var weakCatalog: Catalog?
    func all() -> [Product] { [] }
}

final class ProductCache: Cache {
    typealias Key = Int
    var catalog: Catalog?
    weak var weakCatalog: Catalog?
}

final class Catalog {
    var repository: (any Repository<Product>)?
    var archive: (any Repository<Product>)?
    var cache: (any Cache<Int>)?
    var pinned: InlineArray<3, Catalog?> = [nil, nil, nil]
}

@inline(never)
func makeCatalogs() -> [Catalog] {
    let inline = Catalog()
    let boxed = Catalog()
    let cached = Catalog()
    let pinned = Catalog()
    if mode == .leak {
        inline.repository = ProductRepository(catalog: inline)
        boxed.archive = LargeRepository(catalog: boxed)
        let cache = ProductCache()
        cache.catalog = cached  // store: leak ProductCache.catalog
        cached.cache = cache
        pinned.pinned[1] = pinned
    } else {
        inline.repository = ProductRepository(weakCatalog: inline)
        boxed.archive = LargeRepository(weakCatalog: boxed)
        let cache = ProductCache()
        cache.weakCatalog = cached
        cached.cache = cache
        pinned.pinned[1] = Catalog()
    }
    for catalog in [inline, boxed, cached, pinned] { watch(catalog) }
    return [inline, boxed, cached, pinned]
}

@inline(never)
func escape(_ objects: [AnyObject]) -> Int {
    objects.count
}

let made = escape(makeCatalogs())
finish(expectingAlive: mode == .leak ? 4 : 0)
exit(made == 4 ? 0 : 1)
