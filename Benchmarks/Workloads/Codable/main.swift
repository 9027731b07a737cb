// Codable: the realistic workload of scripts/bench. Builds an object graph of customers, orders and
// line items (classes and structs, arrays, dictionaries, optionals, strings, dates, enums), encodes it
// with Foundation's JSONEncoder and decodes it back with JSONDecoder, ROUNDS times.
//
// Usage: Codable [CUSTOMERS [ROUNDS]]   (default 4000 customers, 4 rounds)

import Foundation

enum Tier: String, Codable {
    case basic, silver, gold
}

struct Address: Codable, Equatable {
    var street: String
    var city: String
    var postcode: String
    var country: String
}

struct LineItem: Codable, Equatable {
    var sku: String
    var title: String
    var quantity: Int
    var unitPrice: Double
    var tags: [String]
}

final class Order: Codable {
    let id: UUID
    let placed: Date
    var items: [LineItem]
    var shipping: Address?
    var notes: String?
    var attributes: [String: String]

    init(id: UUID, placed: Date, items: [LineItem], shipping: Address?, notes: String?, attributes: [String: String]) {
        self.id = id
        self.placed = placed
        self.items = items
        self.shipping = shipping
        self.notes = notes
        self.attributes = attributes
    }
}

final class Customer: Codable {
    let id: Int
    var name: String
    var email: String
    var tier: Tier
    var addresses: [Address]
    var orders: [Order]
    var preferences: [String: Int]

    init(
        id: Int, name: String, email: String, tier: Tier, addresses: [Address], orders: [Order],
        preferences: [String: Int]
    ) {
        self.id = id
        self.name = name
        self.email = email
        self.tier = tier
        self.addresses = addresses
        self.orders = orders
        self.preferences = preferences
    }
}

struct Catalogue: Codable {
    var generated: Date
    var customers: [Customer]
    var index: [String: [Int]]
}

/// A deterministic generator (SplitMix64), so every run encodes the same graph.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func makeCatalogue(customers count: Int) -> Catalogue {
    var random = SplitMix(state: 42)
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    func word() -> String { words[Int(random.next() % UInt64(words.count))] }
    var customers: [Customer] = []
    var index: [String: [Int]] = [:]
    for id in 0..<count {
        let addresses = (0..<Int(1 + random.next() % 2)).map { number in
            Address(
                street: "\(number + 1) \(word().capitalized) Street", city: word().capitalized,
                postcode: String(10_000 + random.next() % 90_000), country: "DE")
        }
        let orders = (0..<Int(2 + random.next() % 4)).map { _ in
            Order(
                id: UUID(), placed: Date(timeIntervalSince1970: Double(1_700_000_000 + random.next() % 10_000_000)),
                items: (0..<Int(1 + random.next() % 5)).map { _ in
                    LineItem(
                        sku: "SKU-\(random.next() % 100_000)", title: "\(word()) \(word())",
                        quantity: Int(1 + random.next() % 9), unitPrice: Double(random.next() % 10_000) / 100,
                        tags: (0..<Int(random.next() % 3)).map { _ in word() })
                },
                shipping: addresses.first, notes: random.next() % 3 == 0 ? "leave at the \(word())" : nil,
                attributes: ["channel": word(), "campaign": word()])
        }
        let customer = Customer(
            id: id, name: "\(word().capitalized) \(word().capitalized)", email: "customer\(id)@example.com",
            tier: [Tier.basic, .silver, .gold][Int(random.next() % 3)], addresses: addresses, orders: orders,
            preferences: ["newsletter": Int(random.next() % 2), "theme": Int(random.next() % 3)])
        customers.append(customer)
        index[addresses[0].city, default: []].append(id)
    }
    return Catalogue(generated: Date(timeIntervalSince1970: 1_700_000_000), customers: customers, index: index)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 2, let customers = Int(arguments.first ?? "4000"),
    let rounds = Int(arguments.dropFirst().first ?? "4"), customers > 0, rounds > 0
else {
    print("usage: Codable [CUSTOMERS [ROUNDS]]")
    exit(64)
}

let encoder = JSONEncoder()
encoder.dateEncodingStrategy = .iso8601
encoder.outputFormatting = [.sortedKeys]
let decoder = JSONDecoder()
decoder.dateDecodingStrategy = .iso8601

var catalogue = makeCatalogue(customers: customers)
var bytes = 0
for _ in 0..<rounds {
    let data = try encoder.encode(catalogue)
    bytes = data.count
    catalogue = try decoder.decode(Catalogue.self, from: data)
}
let orders = catalogue.customers.reduce(0) { $0 + $1.orders.count }
print("\(rounds) rounds of \(customers) customers, \(orders) orders: \(bytes) bytes of JSON per round")
