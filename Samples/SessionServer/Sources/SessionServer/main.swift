// A request loop with a session cache: requests for /home, /profile and /cart come from 50 users,
// each served from the user's cached session (the cache keeps the 16 most recent sessions, so
// sessions are made and dropped all the time); every 40th request is /export, whose handler leaks:
// the export job's completion handler captures the job itself.
//
//     SessionServer [--seconds S] [--signal-self [--signal-at N]] [--terminate]
//
// Serves requests for S seconds (default 2; one every millisecond), then exits normally.
// --signal-self: after 500 requests (--signal-at N: N), sends itself SIGUSR2 (leakgraph run's
// check signal).
// --terminate: ends by sending itself SIGTERM instead of returning from main.

import Foundation

final class Session {
    let user: String
    var cart: [String] = []
    var lastSeen = Date()
    weak var cache: SessionCache?
    init(user: String) { self.user = user }
}

final class SessionCache {
    private var sessions: [String: Session] = [:]
    private var order: [String] = []
    let capacity = 16

    func session(for user: String) -> Session {
        if let session = sessions[user] {
            session.lastSeen = Date()
            return session
        }
        let session = Session(user: user)
        session.cache = self
        sessions[user] = session
        order.append(user)
        if order.count > capacity {
            sessions.removeValue(forKey: order.removeFirst())
        }
        return session
    }
}

final class ExportJob {
    let session: Session
    var rows: [String] = []
    var onComplete: (() -> Void)?
    init(session: Session) { self.session = session }

    func run() {
        rows = session.cart.map { "row \($0)" }
        // The leak: the handler captures the job strongly, and the job keeps the handler.
        onComplete = { self.rows.removeAll() }
        onComplete?()
    }
}

struct Request {
    var route: String
    var user: String
}

func handle(_ request: Request, cache: SessionCache) -> String {
    let session = cache.session(for: request.user)
    switch request.route {
    case "/cart":
        session.cart.append("item-\(session.cart.count)")
        if session.cart.count > 8 { session.cart.removeFirst() }
        return "200 cart \(session.cart.count)"
    case "/profile":
        return "200 profile \(session.user)"
    case "/export":
        let job = ExportJob(session: session)
        job.run()
        return "200 export"
    default:
        return "200 home"
    }
}

let arguments = CommandLine.arguments
let seconds = arguments.firstIndex(of: "--seconds").flatMap { Double(arguments[$0 + 1]) } ?? 2
let signalSelf = arguments.contains("--signal-self")
let signalAt = arguments.firstIndex(of: "--signal-at").flatMap { Int(arguments[$0 + 1]) } ?? 500
let terminate = arguments.contains("--terminate")

let cache = SessionCache()
let routes = ["/home", "/profile", "/cart", "/cart"]
let end = Date().addingTimeInterval(seconds)
var served = 0
var signalled = false
while Date() < end {
    let route = served % 40 == 39 ? "/export" : routes[served % routes.count]
    let response = handle(Request(route: route, user: "user\(served % 50)"), cache: cache)
    if served == signalAt, signalSelf, !signalled {
        signalled = true
        kill(getpid(), SIGUSR2)
    }
    _ = response
    served += 1
    usleep(1_000)
}
print("served \(served) requests")
if terminate {
    // Whoever started the program may have blocked SIGTERM (a test runner's thread); take it as a
    // shell's `kill` would.
    var terminateSignal = sigset_t()
    sigemptyset(&terminateSignal)
    sigaddset(&terminateSignal, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &terminateSignal, nil)
    kill(getpid(), SIGTERM)
    sleep(10)
}
