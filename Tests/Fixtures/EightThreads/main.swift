// Stress: leaks made on 8 threads at once (they start together at a barrier); each thread makes 100 pairs.
// leak: ThreadOwner ⇄ ThreadPartner, strong — 1,600 leaked objects, 800 root cycles of two.
// fixed: the partner holds its owner `weak` — nothing leaks.

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

final class ThreadOwner {
    var partner: ThreadPartner?
    var thread = 0
}

final class ThreadPartner {
    var owner: ThreadOwner?
    weak var weakOwner: ThreadOwner?
}

let threadCount = 8
let pairsPerThread = 100
var watchLock = pthread_mutex_t()
var startLine = pthread_barrier_t()

func watchFromAnyThread(_ object: AnyObject) {
    guard checking else { return }
    pthread_mutex_lock(&watchLock)
    watch(object)
    pthread_mutex_unlock(&watchLock)
}

@inline(never)
func makePairs() {
    for _ in 0..<pairsPerThread {
        let owner = ThreadOwner()
        let partner = ThreadPartner()
        watchFromAnyThread(owner)
        watchFromAnyThread(partner)
        owner.partner = partner
        switch mode {
        case .leak: partner.owner = owner
        case .fixed: partner.weakOwner = owner
        }
    }
}

@inline(never)
func runThreads() {
    pthread_mutex_init(&watchLock, nil)
    pthread_barrier_init(&startLine, nil, UInt32(threadCount))
    var threads: [pthread_t] = []
    for _ in 0..<threadCount {
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { _ in
            pthread_barrier_wait(&startLine)
            makePairs()
            return nil
        }, nil)
        guard result == 0 else {
            print("pthread_create failed: \(result)")
            exit(4)
        }
        threads.append(thread)
    }
    for thread in threads {
        pthread_join(thread, nil)
    }
}

runThreads()
finish(expectingAlive: mode == .leak ? 2 * threadCount * pairsPerThread : 0)
