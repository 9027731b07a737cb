// Stored class properties with Foundation value types (resilient structs from another module) stored beside
// the references: Data (inline and heap-backed), URL, Date, UUID, [String: Data].
// - Record has `data`, `blob` (a 4 KiB Data, heap storage), `url`, `date`, `id`, `attachments` and
//   `store: Store?`; Store.records: [Record] → the Record.
// - Download has a `URL`, a `Data`, a `Date?` and `owner: Session?`; Session.download → Download.
// leak: 13 leaked objects — 2 root cycles: {Record, Store, array storage} holding the blob's __DataStorage,
// the URL's _SwiftURL and URLParseInfo, the attachments' dictionary storage and its __DataStorage; and
// {Download, Session} holding a __DataStorage, a _SwiftURL and a URLParseInfo. (`data`, `date` and `id` hold
// no heap objects: three bytes of Data are stored inline.)
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Foundation
import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live value must not look leaked.
var keptAlive: [AnyObject] = []

final class Record {
    var data = Data([1, 2, 3])
    var blob = Data(repeating: 7, count: 4096)
    var url = URL(string: "https://example.com/records/1")!
    var date = Date(timeIntervalSince1970: 1_700_000_000)
    var id = UUID()
    var attachments: [String: Data] = ["a": Data(repeating: 1, count: 100)]
    var store: Store?
    weak var weakStore: Store?
}

final class Store {
    var records: [Record] = []
}

final class Session {
    var download: Download?
}

final class Download {
    let source: URL
    var received = Data()
    var started: Date? = Date()
    var owner: Session?
    weak var weakOwner: Session?

    init(source: URL) {
        self.source = source
    }
}

@inline(never)
func makeRecord() {
    let record = Record()
    let store = Store()
    watch(record)
    watch(store)
    store.records.append(record)
    switch mode {
    case .leak: record.store = store  // store: leak Record.store
    case .fixed:
        record.weakStore = store
        keptAlive.append(store)
    }
}

@inline(never)
func makeDownload() {
    let session = Session()
    let download = Download(source: URL(fileURLWithPath: "/tmp/leakgraph-fixture-download"))
    watch(session)
    watch(download)
    download.received.append(contentsOf: [UInt8](repeating: 9, count: 300))
    session.download = download
    switch mode {
    case .leak: download.owner = session  // store: leak Download.owner
    case .fixed:
        download.weakOwner = session
        keptAlive.append(session)
    }
}

makeRecord()
makeDownload()
finish(expectingAlive: 4)
