// Generic closure contexts in the shape of futures libraries (SwiftNIO's `EventLoopFuture<Value>`): a generic
// function makes a closure that captures instances of generic *classes* of its parameter — `Future<T>`,
// `Optional<Future<T>>`, `Handler<T>`. A class reference needs no metadata to copy or destroy, so the
// closure context binds no generic parameter, and its capture types (`Future<T>`) cannot be resolved: the
// walk reads each as one strong object pointer.
// leak: `future.callbacks.append { handler.handle(future) }` — root cycle {Future<Int>, callbacks storage,
// closure context} holding the Handler<Int>; and the same through an `Optional<Future<String>>` capture.
// fixed: `[weak future]` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Future<Value> {
    var callbacks: [() -> Void] = []
    var value: Value?
}

final class Handler<Value> {
    var handled = 0
    func handle(_ future: Future<Value>?) { handled += future == nil ? 0 : 1 }
}

@inline(never)
func whenComplete<T>(_ future: Future<T>, _ handler: Handler<T>) {
    if mode == .leak {
        future.callbacks.append { handler.handle(future) }
    } else {
        future.callbacks.append { [weak future] in handler.handle(future) }
    }
}

@inline(never)
func whenCompleteOptional<T>(_ future: Future<T>?, _ handler: Handler<T>) {
    if mode == .leak {
        future?.callbacks.append { handler.handle(future) }
    } else {
        future?.callbacks.append { [weak future] in handler.handle(future) }
    }
}

@inline(never)
func makeFutures() {
    let numbers = Future<Int>()
    let numberHandler = Handler<Int>()
    watch(numbers)
    watch(numberHandler)
    whenComplete(numbers, numberHandler)
    let texts = Future<String>()
    let textHandler = Handler<String>()
    watch(texts)
    watch(textHandler)
    whenCompleteOptional(Optional(texts), textHandler)
}

makeFutures()
finish(expectingAlive: mode == .leak ? 4 : 0)
