// Orphaned retains — an object retained +1 whose pointer is then dropped.
// leak: `Unmanaged.passRetained(token)` dropped (the Token holds a Payload), and a Listener retained +1
// by a C-style registration (a malloc'd struct holding the context pointer) that is freed without
// releasing it — 3 leaked objects, 2 root groups of kind `orphan` (Token holding Payload; Listener).
// fixed: `Unmanaged` balanced with `release()` — nothing leaks.
// rawGlobal / bitPatternGlobal: the retained pointer is kept only as an `UnsafeRawPointer` / an
// `Int(bitPattern:)` in a global — the conservative scan finds it: held, nothing leaks.
// threadLocal: a second thread holds the only reference in a local while it is blocked in a wait at
// exit — held, nothing leaks.
// staleStack: a second thread makes a Token, drops its `passRetained`, fills its dead stack — the 15 KB
// below its live frames, where the kernel builds the signal frame that stops it for the scan — with
// copies of the Token's address, and blocks at exit: the frame's unwritten gaps are no holders, so the
// Token is an orphan (holding its Payload). (makeShape's own Token is freed.)
// timerCycle: an unscheduled `Timer` whose block captures its owner — a real leak whose references run
// through CoreFoundation's timer: the Timer retains itself for its `CFRunLoopTimer`'s context, a word in
// C memory no metadata describes. The holder scan finds it there, inside the leaked timer object, so the
// cycle {Poller, Timer, its CFRunLoopTimer} is reported, closed by that raw pointer.
// timerInvalidated: a `Timer` whose block captures its owner weakly, invalidated: swift-corelibs-foundation
// then drops the Timer's retain on itself without releasing it — an orphan `Foundation.Timer`, reported as a
// known library leak (the program's own objects are freed). (A `DispatchWorkItem` cycle is read: fixture
// DispatchWorkItems.)

import Foundation
import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed, rawGlobal, bitPatternGlobal, threadLocal, staleStack, timerCycle, timerInvalidated }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Payload {
    var bytes = [UInt8](repeating: 1, count: 4)
}

final class Token {
    let payload = Payload()
    var id = 7
}

final class Listener {
    var calls = 0
}

/// What a C API keeps for a registered callback: a context pointer holding +1.
struct Registration {
    var context: UnsafeMutableRawPointer
    var callback: @convention(c) (UnsafeMutableRawPointer) -> Void
}

var keptRaw: UnsafeRawPointer?
var keptBits = 0

@inline(never)
func register(_ listener: Listener) -> UnsafeMutablePointer<Registration> {
    let registration = UnsafeMutablePointer<Registration>.allocate(capacity: 1)
    registration.initialize(
        to: Registration(
            context: Unmanaged.passRetained(listener).toOpaque(),
            callback: { Unmanaged<Listener>.fromOpaque($0).takeUnretainedValue().calls += 1 }))
    return registration
}

@inline(never)
func unregisterForgettingTheRelease(_ registration: UnsafeMutablePointer<Registration>) {
    registration.deinitialize(count: 1)
    registration.deallocate()
}

@inline(never)
func makeShape() {
    let token = Token()
    watch(token)
    watch(token.payload)
    let listener = Listener()
    switch mode {
    case .leak:
        _ = Unmanaged.passRetained(token)
        watch(listener)
        unregisterForgettingTheRelease(register(listener))
    case .fixed:
        let retained = Unmanaged.passRetained(token)
        retained.release()
    case .rawGlobal:
        keptRaw = UnsafeRawPointer(Unmanaged.passRetained(token).toOpaque())
    case .bitPatternGlobal:
        keptBits = Int(bitPattern: Unmanaged.passRetained(token).toOpaque())
    case .threadLocal:
        startWaitingThread(holding: token)
    case .staleStack:
        startThreadWithStaleStack()
    case .timerCycle:
        let poller = Poller()
        poller.start()
    case .timerInvalidated:
        let poller = Poller()
        poller.startWeakly()
        poller.timer?.invalidate()
    }
}

final class Poller {
    var timer: Timer?
    var polls = 0

    @inline(never)
    func start() {
        timer = Timer(timeInterval: 60, repeats: true) { _ in self.polls += 1 }
    }

    @inline(never)
    func startWeakly() {
        timer = Timer(timeInterval: 60, repeats: true) { [weak self] _ in self?.polls += 1 }
    }
}

var ready = sem_t()
var never = sem_t()

/// A thread whose only reference to `token` is a local, blocked in a wait that never ends.
@inline(never)
func startWaitingThread(holding token: Token) {
    sem_init(&ready, 0, 0)
    sem_init(&never, 0, 0)
    let context = Unmanaged.passRetained(token).toOpaque()
    var thread = pthread_t()
    pthread_create(
        &thread, nil,
        { context in
            let token = Unmanaged<Token>.fromOpaque(context!).takeRetainedValue()
            sem_post(&ready)
            sem_wait(&never)
            withExtendedLifetime(token) {}
            return nil
        }, context)
    sem_wait(&ready)
}

/// The stale-stack thread keeps the orphan's address xor this: neither the address nor its complement.
let staleMask: UInt = 0x0000_5a5a_5a5a_5a58

/// A new Token retained for good, its address masked; called below `fillDeadStack`'s buffer, so what
/// its frame leaves lies deeper than anything the scan reads.
@inline(never)
func makeOrphanToken() -> UInt {
    let token = Token()
    watch(token)
    watch(token.payload)
    return UInt(bitPattern: Unmanaged.passRetained(token).toOpaque()) ^ staleMask
}

/// Makes the orphan and fills this function's 16 KB stack buffer, all but its top 1 KB (nearest the
/// caller: where the blocked thread's live frames and red zone will be), with its address; the buffer
/// is dead stack once this returns.
@inline(never)
func fillDeadStack() {
    // A local `InlineArray` lives in this frame (a temporary allocation this large would be malloc'd).
    var buffer = InlineArray<2048, UInt>(repeating: 0)
    let maskedAddress = makeOrphanToken()
    // One call per word, so no vector register is left holding the address (a register is a holder).
    for index in 0..<(2048 - 128) { store(maskedAddress, into: &buffer, at: index) }
    blackHole(buffer[0] &+ buffer[1919])
}

@inline(never)
func store(_ maskedAddress: UInt, into buffer: inout InlineArray<2048, UInt>, at index: Int) {
    buffer[index] = maskedAddress ^ staleMask
}

@inline(never)
func blackHole(_ value: UInt) { if value == 1 { print(value) } }

/// A thread that makes an orphan, leaves copies of its address in its dead stack, and blocks for good.
@inline(never)
func startThreadWithStaleStack() {
    sem_init(&ready, 0, 0)
    sem_init(&never, 0, 0)
    var thread = pthread_t()
    pthread_create(
        &thread, nil,
        { _ in
            fillDeadStack()
            sem_post(&ready)
            sem_wait(&never)
            return nil
        }, nil)
    sem_wait(&ready)
}

@inline(never)
func scrubStack() {
    // Overwrites the dead frames below main with zeros, so no stale copy of a dropped pointer is left
    // where the exit-time check's frames do not reach.
    var scratch = [UInt64](repeating: 0, count: 1)
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4096) { buffer in
        buffer.initialize(repeating: 0)
        scratch[0] = buffer[4095]
    }
    _ = scratch
}

makeShape()
scrubStack()
finish(expectingAlive: mode == .fixed ? 0 : mode == .leak ? 3 : 2)
