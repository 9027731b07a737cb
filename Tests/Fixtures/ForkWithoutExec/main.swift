// fork() without exec while another thread allocates and frees Swift objects: the child runs on
// with only the forking thread, and must not find a recorder lock held forever by a thread that
// does not exist in it. The worker thread allocates and releases continuously (holding its record
// shard's lock often); each child releases objects the worker made (their records are in the
// worker's shard), allocates its own, and exits with _exit. A child that does not finish within
// 20 seconds is a deadlock: the program kills it and exits with 3.
//
// leak: after the forks, a ForkOwner ⇄ ForkPartner cycle — 2 leaked objects, 1 root cycle.
// fixed: the partner holds its owner weak — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Churn {
    var value: Int
    init(_ value: Int) { self.value = value }
}

final class ForkOwner {
    var partner: ForkPartner?
}

final class ForkPartner {
    var owner: ForkOwner?
    weak var weakOwner: ForkOwner?
}

/// Objects the worker made, handed over under `handOver`.
nonisolated(unsafe) var shared: [Churn] = []
nonisolated(unsafe) var handOver = pthread_mutex_t()
nonisolated(unsafe) var stop = false

func worker(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    var round = 0
    while !shouldStop() {
        let fresh = (0..<64).map { Churn(round &+ $0) }
        pthread_mutex_lock(&handOver)
        shared = fresh
        pthread_mutex_unlock(&handOver)
        round &+= 1
    }
    return nil
}

@inline(never)
func shouldStop() -> Bool {
    pthread_mutex_lock(&handOver)
    defer { pthread_mutex_unlock(&handOver) }
    return stop
}

/// In the child: release the worker's objects, allocate and release more, leave without exit
/// handlers.
@inline(never)
func childBody() -> Never {
    shared = []  // the worker's objects: their records are in the worker's shard
    var local: [Churn] = []
    for index in 0..<1_000 {
        local.append(Churn(index))
    }
    local.removeAll()
    _exit(0)
}

@inline(never)
func forkMany(_ count: Int) {
    for index in 0..<count {
        // The hand-over mutex is held across fork, so the child sees `shared` whole.
        pthread_mutex_lock(&handOver)
        let pid = fork()
        if pid == 0 {
            pthread_mutex_unlock(&handOver)
            childBody()
        }
        pthread_mutex_unlock(&handOver)
        guard pid > 0 else {
            print("fork failed: \(errno)")
            exit(4)
        }
        var status: Int32 = 0
        var waited = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            usleep(1_000)
            waited += 1
            if waited == 20_000 {
                kill(pid, SIGKILL)
                print("child \(index) deadlocked")
                exit(3)
            }
        }
    }
}

@inline(never)
func makePair() {
    let owner = ForkOwner()
    let partner = ForkPartner()
    watch(owner)
    watch(partner)
    owner.partner = partner
    switch mode {
    case .leak: partner.owner = owner  // store: leak ForkPartner.owner
    case .fixed: partner.weakOwner = owner
    }
}

pthread_mutex_init(&handOver, nil)
var thread = pthread_t()
pthread_create(&thread, nil, worker, nil)
forkMany(100)
pthread_mutex_lock(&handOver)
stop = true
shared = []
pthread_mutex_unlock(&handOver)
pthread_join(thread, nil)
makePair()
if checking { print("forked 100 children") }
finish(expectingAlive: mode == .leak ? 2 : 0)
