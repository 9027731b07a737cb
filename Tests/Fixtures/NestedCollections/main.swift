// ArraySlice, ContiguousArray of existentials, nested collections.
// - Playlist.window: ArraySlice<Track> = tracks[1..<3] of four tracks — the slice keeps the whole array
//   storage (all four tracks) alive; every Track.playlist → Playlist.
// - Mixer.channels: ContiguousArray<any Channel> (class-bound) with two Faders; Fader.mixer → Mixer.
// - Grid.rows: [[Cell]] — two rows of two cells; Cell.grid → Grid.
// - Catalog.byTag: [String: [Item]] = ["red": [a, b], "blue": [c]]; Item.catalog → Catalog.
// leak: 25 leaked objects — 4 root cycles:
//   {Playlist, array storage, Track ×4}, {Mixer, array storage, Fader ×2},
//   {Grid, outer storage, 2 row storages, Cell ×4}, {Catalog, dictionary storage, 2 array storages, Item ×3}.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live element must not look leaked.
var keptAlive: [AnyObject] = []

final class Track {
    var playlist: Playlist?
    weak var weakPlaylist: Playlist?
}

final class Playlist {
    var window: ArraySlice<Track> = []
}

protocol Channel: AnyObject {
    var level: Int { get }
}

final class Fader: Channel {
    var mixer: Mixer?
    weak var weakMixer: Mixer?
    var level: Int { 3 }
}

final class Mixer {
    var channels: ContiguousArray<any Channel> = []
}

final class Cell {
    var grid: Grid?
    weak var weakGrid: Grid?
}

final class Grid {
    var rows: [[Cell]] = []
}

final class Item {
    var catalog: Catalog?
    weak var weakCatalog: Catalog?
}

final class Catalog {
    var byTag: [String: [Item]] = [:]
}

@inline(never)
func makePlaylist() {
    let playlist = Playlist()
    watch(playlist)
    var tracks: [Track] = []
    for _ in 0..<4 {
        let track = Track()
        watch(track)
        tracks.append(track)
        switch mode {
        case .leak: track.playlist = playlist  // store: leak Track.playlist
        case .fixed: track.weakPlaylist = playlist
        }
    }
    playlist.window = tracks[1..<3]
    if mode == .fixed { keptAlive.append(playlist) }
}

@inline(never)
func makeMixer() {
    let mixer = Mixer()
    watch(mixer)
    for _ in 0..<2 {
        let fader = Fader()
        watch(fader)
        mixer.channels.append(fader)
        switch mode {
        case .leak: fader.mixer = mixer  // store: leak Fader.mixer
        case .fixed: fader.weakMixer = mixer
        }
    }
    if mode == .fixed { keptAlive.append(mixer) }
}

@inline(never)
func makeCell(in grid: Grid) -> Cell {
    let cell = Cell()
    watch(cell)
    switch mode {
    case .leak: cell.grid = grid  // store: leak Cell.grid
    case .fixed: cell.weakGrid = grid
    }
    return cell
}

@inline(never)
func makeGrid() {
    let grid = Grid()
    watch(grid)
    grid.rows = [
        [makeCell(in: grid), makeCell(in: grid)],
        [makeCell(in: grid), makeCell(in: grid)],
    ]
    if mode == .fixed { keptAlive.append(grid) }
}

@inline(never)
func makeItem(in catalog: Catalog) -> Item {
    let item = Item()
    watch(item)
    switch mode {
    case .leak: item.catalog = catalog  // store: leak Item.catalog
    case .fixed: item.weakCatalog = catalog
    }
    return item
}

@inline(never)
func makeCatalog() {
    let catalog = Catalog()
    watch(catalog)
    catalog.byTag = ["red": [makeItem(in: catalog), makeItem(in: catalog)], "blue": [makeItem(in: catalog)]]
    if mode == .fixed { keptAlive.append(catalog) }
}

makePlaylist()
makeMixer()
makeGrid()
makeCatalog()
finish(expectingAlive: 17)
