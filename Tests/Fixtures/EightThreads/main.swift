// Stress: leaks made on 8 threads at once (they start together at a barrier); each thread makes 100 pairs.
// leak: ThreadOwner ⇄ ThreadPartner, strong — 1,600 leaked objects, 800 root cycles of two.
// fixed: the partner holds its owner `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
        case .leak: partner.owner = owner  // store: leak ThreadPartner.owner
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
