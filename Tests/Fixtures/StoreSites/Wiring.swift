// A delegate assigned in a wiring function (mode delegate), a closure stored by a setter (mode
// closureSetter), a cycle closed on another thread (mode otherThread) and an ambiguous history (mode
// ambiguous).

protocol DownloadDelegate: AnyObject {
    func finished()
}

final class Downloader {
    var delegate: (any DownloadDelegate)?
    weak var weakDelegate: (any DownloadDelegate)?
}

final class Screen: DownloadDelegate {
    let downloader = Downloader()
    var done = 0
    func finished() { done += 1 }
}

@inline(never)
func wire(_ screen: Screen, weakly: Bool) {
    if weakly {
        screen.downloader.weakDelegate = screen
    } else {
        screen.downloader.delegate = screen  // store: delegate Downloader.delegate
    }
}

final class Button {
    private(set) var onTap: (() -> Void)?

    @inline(never)
    func setOnTap(_ action: @escaping () -> Void) {
        onTap = action  // store: closureSetter Button.onTap
    }
}

final class Panel {
    let button = Button()
    var taps = 0

    @inline(never)
    func configure(weakly: Bool) {
        if weakly {
            button.setOnTap { [weak self] in self?.taps += 1 }
        } else {
            button.setOnTap { self.taps += 1 }
        }
    }
}

final class Session {
    var client: Client?
}

final class Client {
    var session: Session?
}

final class Hub {
    var client: HubClient?
}

final class HubClient {
    let owner: Hub

    @inline(never)
    init(owner: Hub) {
        self.owner = owner
    }
}

@inline(never)
func attach(_ hub: Hub) -> HubClient {
    HubClient(owner: hub)  // candidate: ambiguous HubClient.owner
}

@inline(never)
func reserve(_ hub: Hub) -> HubClient {
    HubClient(owner: hub)  // candidate: ambiguous HubClient.owner
}
