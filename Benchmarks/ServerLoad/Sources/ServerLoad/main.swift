// The server scripts/bench-server loads: a catalogue of live objects (so a check has a heap to walk),
// each request building and encoding a small response from it, and — with `--leak-every N` — one
// request in N leaking a session ⇄ handler cycle, the kind of leak a server makes when a handler keeps
// its session through a stored closure.
//
//   ServerLoad PORT LIVE-OBJECTS [--leak-every N]
import Hummingbird
import Synchronization

/// One entry of the catalogue: two objects per entry (the item and its tags' storage).
final class Item: Sendable {
    let id: Int
    let name: String
    let tags: [String]
    init(id: Int) {
        self.id = id
        name = "item-\(id)"
        tags = ["t\(id % 7)", "t\(id % 11)"]
    }
}

/// A request's session; a leaked one is held by its handler's closure, which it holds.
final class Session: @unchecked Sendable {
    let id: Int
    var onClose: (() -> Void)?
    init(id: Int) { self.id = id }
}

/// What one request returns.
struct ItemResponse: ResponseEncodable {
    let id: Int
    let name: String
    let tags: [String]
    let related: [Int]
}

@inline(never)
func leakSession(_ id: Int) {
    let session = Session(id: id)
    session.onClose = { print(session.id) }
}

let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8080 : 8080
let liveObjects = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let leakEvery = arguments.firstIndex(of: "--leak-every").flatMap { Int(arguments[$0 + 1]) } ?? 0
let catalogue = (0..<max(liveObjects / 2, 1)).map(Item.init)
let counter = Mutex(0)

let router = Router()
router.get("items/:id") { _, context -> ItemResponse in
    let id = (context.parameters.get("id", as: Int.self) ?? 0) % catalogue.count
    let item = catalogue[id]
    let number = counter.withLock { value in
        value += 1
        return value
    }
    if leakEvery > 0, number % leakEvery == 0 { leakSession(number) }
    return ItemResponse(
        id: item.id, name: item.name, tags: item.tags,
        related: (1...8).map { (id &* 31 &+ $0) % catalogue.count })
}
router.get("health") { _, _ in "ok" }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
