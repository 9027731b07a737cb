// Dictionary keys and values, Set members.
// - Cache.entries: [String: Entry] = ["alpha": …, "beta": …]; Entry.cache → Cache.
// - Registry.counts: [Token: Int] — class keys; Token.registry → Registry.
// - Index.byNumber: [Int: Page] = [7: page]; Page.index → Index.
// - Group.guests: Set<Guest> with three guests; Guest.group → Group.
// leak: 16 leaked objects — 4 root cycles, each {owner, its hashed storage, its elements}:
//   {Cache, dictionary storage, Entry ×2}, {Registry, dictionary storage, Token ×2},
//   {Index, dictionary storage, Page}, {Group, set storage, Guest ×3}.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live element must not look leaked.
var keptAlive: [AnyObject] = []

final class Entry {
    var cache: Cache?
    weak var weakCache: Cache?
}

final class Cache {
    var entries: [String: Entry] = [:]
}

final class Token: Hashable {
    let id: Int
    var registry: Registry?
    weak var weakRegistry: Registry?

    init(id: Int) {
        self.id = id
    }

    static func == (lhs: Token, rhs: Token) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

final class Registry {
    var counts: [Token: Int] = [:]
}

final class Page {
    var index: Index?
    weak var weakIndex: Index?
}

final class Index {
    var byNumber: [Int: Page] = [:]
}

final class Guest: Hashable {
    let name: String
    var group: Group?
    weak var weakGroup: Group?

    init(name: String) {
        self.name = name
    }

    static func == (lhs: Guest, rhs: Guest) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

final class Group {
    var guests: Set<Guest> = []
}

@inline(never)
func makeCache() {
    let cache = Cache()
    watch(cache)
    for key in ["alpha", "beta"] {
        let entry = Entry()
        watch(entry)
        cache.entries[key] = entry
        switch mode {
        case .leak: entry.cache = cache  // store: leak Entry.cache
        case .fixed: entry.weakCache = cache
        }
    }
    if mode == .fixed { keptAlive.append(cache) }
}

@inline(never)
func makeRegistry() {
    let registry = Registry()
    watch(registry)
    for id in 1...2 {
        let token = Token(id: id)
        watch(token)
        registry.counts[token] = id * 10
        switch mode {
        case .leak: token.registry = registry  // store: leak Token.registry
        case .fixed: token.weakRegistry = registry
        }
    }
    if mode == .fixed { keptAlive.append(registry) }
}

@inline(never)
func makeIndex() {
    let index = Index()
    let page = Page()
    watch(index)
    watch(page)
    index.byNumber[7] = page
    switch mode {
    case .leak: page.index = index  // store: leak Page.index
    case .fixed:
        page.weakIndex = index
        keptAlive.append(index)
    }
}

@inline(never)
func makeGroup() {
    let group = Group()
    watch(group)
    for name in ["ann", "bob", "cy"] {
        let guest = Guest(name: name)
        watch(guest)
        group.guests.insert(guest)
        switch mode {
        case .leak: guest.group = group  // store: leak Guest.group
        case .fixed: guest.weakGroup = group
        }
    }
    if mode == .fixed { keptAlive.append(group) }
}

makeCache()
makeRegistry()
makeIndex()
makeGroup()
finish(expectingAlive: 12)
