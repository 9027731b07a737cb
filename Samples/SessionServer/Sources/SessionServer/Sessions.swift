// The sessions, their cache and the request handler; `/export` leaks (see main.swift).

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
