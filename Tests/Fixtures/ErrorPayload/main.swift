// Errors holding their owner, inside `any Error` (an error box on the heap).
// - Request.outcome: Result<Int, any Error> = .failure(RequestError(request:)) — the error value holds the
//   Request; it lives in an error box (metadata kind 0x501) that the Result's failure payload points to.
// - Upload.lastError: (any Error)? = UploadFailure(upload:, detail:) — a plain `any Error` field.
// leak: 4 leaked objects — 2 root cycles {Request, its error box} and {Upload, its error box}.
// fixed: the errors hold `weak` references and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
