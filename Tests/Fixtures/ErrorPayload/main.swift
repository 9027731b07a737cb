// Row 7 of LEAK-PATTERNS: errors holding their owner, inside `any Error` (an error box on the heap).
// - Request.outcome: Result<Int, any Error> = .failure(RequestError(request:)) — the error value holds the
//   Request; it lives in an error box (metadata kind 0x501) that the Result's failure payload points to.
// - Upload.lastError: (any Error)? = UploadFailure(upload:, detail:) — a plain `any Error` field.
// leak: 4 leaked objects — 2 root cycles {Request, its error box} and {Upload, its error box}.
// fixed: the errors hold `weak` references and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing (the same in every fixture)
//
// The shape is built by an `@inline(never)` function that returns, so nothing of it is left on the stack,
// and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

enum Mode: String { case leak, fixed }

let mode: Mode = {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        print("usage: \(CommandLine.arguments[0]) leak|fixed")
        exit(64)
    }
    return mode
}()

struct WeakObject { weak var object: AnyObject? }
let checking = getenv("FIXTURE_CHECK") != nil
var watched: [WeakObject] = []

@inline(never)
func watch(_ object: AnyObject) {
    if checking { watched.append(WeakObject(object: object)) }
}

func finish(expectingAlive expected: Int) {
    guard checking else { return }
    let alive = watched.filter { $0.object != nil }.count
    print("fixture check: \(alive) of \(watched.count) watched objects alive, expected \(expected)")
    if alive != expected { exit(3) }
}

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live payload must not look leaked.
var keptAlive: [AnyObject] = []

struct RequestError: Error {
    var request: Request?
    weak var weakRequest: Request?
}

final class Request {
    var outcome: Result<Int, any Error> = .success(0)
}

struct UploadFailure: Error {
    var upload: Upload?
    weak var weakUpload: Upload?
    var detail: String
}

final class Upload {
    var lastError: (any Error)?
}

@inline(never)
func makeRequest() {
    let request = Request()
    watch(request)
    switch mode {
    case .leak: request.outcome = .failure(RequestError(request: request))
    case .fixed:
        request.outcome = .failure(RequestError(weakRequest: request))
        keptAlive.append(request)
    }
}

@inline(never)
func makeUpload() {
    let upload = Upload()
    watch(upload)
    switch mode {
    case .leak: upload.lastError = UploadFailure(upload: upload, detail: "timed out")
    case .fixed:
        upload.lastError = UploadFailure(weakUpload: upload, detail: "timed out")
        keptAlive.append(upload)
    }
}

makeRequest()
makeUpload()
finish(expectingAlive: 2)
