// Issue 13, "why is it still alive": objects that are reachable, so no leak, but should be gone.
//
// leak:   a `ProfileViewController` registers an observer closure that captures it strongly with the
//         shared notification centre (a `static let`) and never removes it; a `SearchController` is
//         appended to a global list (`var openControllers`) and never taken out. Both are alive at exit,
//         held from a global: `leakgraph run --why ProfileViewController --why SearchController` names
//         the global and the chain of references to each.
// fixed:  the observer captures `[weak self]` and the search controller is removed from the list:
//         neither is alive at exit.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

final class Observer {
    let name: String
    let handler: () -> Void
    init(name: String, handler: @escaping () -> Void) {
        self.name = name
        self.handler = handler
    }
}

final class NotificationCentre {
    static let shared = NotificationCentre()
    var observers: [Observer] = []

    func addObserver(forName name: String, _ handler: @escaping () -> Void) {
        observers.append(Observer(name: name, handler: handler))
    }
}

final class ProfileViewController {
    var title = "Profile"
    var refreshes = 0

    func viewDidLoad() {
        if mode == .leak {
            NotificationCentre.shared.addObserver(forName: "didBecomeActive") { self.refreshes += 1 }
        } else {
            NotificationCentre.shared.addObserver(forName: "didBecomeActive") { [weak self] in self?.refreshes += 1 }
        }
    }
}

final class SearchController {
    var query = ""
}

var openControllers: [SearchController] = []

@inline(never)
func showProfile() -> Int {
    let controller = ProfileViewController()
    controller.viewDidLoad()
    watch(controller)
    return controller.refreshes
}

@inline(never)
func search() -> Int {
    let controller = SearchController()
    openControllers.append(controller)
    watch(controller)
    controller.query = "bikes"
    if mode == .fixed {
        openControllers.removeAll { $0 === controller }
    }
    return controller.query.count
}

let shown = showProfile() + search()
finish(expectingAlive: mode == .leak ? 2 : 0)
exit(shown == 5 ? 0 : 1)
