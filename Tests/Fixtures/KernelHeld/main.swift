// Objects whose only pointer the kernel keeps for a thread that will get it
// back. Each `Connection` is retained once with `Unmanaged.passRetained` and its address handed to the
// kernel; nothing in the process's memory points at it any more. It is reachable: the thread that waits
// will get the pointer back and release it. So every mode but `leak` must report nothing.
//
// epoll:  an event-loop thread waits in `epoll_wait`; three connections are registered with epoll only,
//         each retained pointer in its `epoll_event.data`.
// pipe:   a worker that will read retained pointers from a pipe, blocked before it reads: two pointers in
//         flight, the second after a 3-byte header (not at a word boundary).
// socket: the same through sockets: a UNIX stream socket pair, a UNIX datagram socket pair (the pointer
//         in the second datagram) and a TCP connection over loopback (in the accepted socket's receive
//         queue).
// timer:  a POSIX timer armed for an hour carries a retained pointer as its `sigev_value`.
// udp:    a datagram with a retained pointer waits in a UDP socket's queue, which the scan does not read
//         (a peek could take an error the program has not seen): nothing is reported, and the report says
//         that the kernel keeps words LeakGraph cannot read.
// leak:   the same places, emptied without the release: the epoll registration deleted, the pipe's bytes
//         read and dropped, the timer deleted — 3 orphans (Connection), each `retained 1 time,
//         referenced from nowhere`.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, epoll, pipe, socket, timer, udp }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Connection {
    let id: Int
    var received = [UInt8](repeating: 0, count: 16)
    init(id: Int) { self.id = id }
}

/// A connection retained once, its address returned as the raw pointer the kernel will keep.
@inline(never)
func retainedConnection(_ id: Int) -> UnsafeMutableRawPointer {
    let connection = Connection(id: id)
    watch(connection)
    return Unmanaged.passRetained(connection).toOpaque()
}

// epoll is not in Swift's Glibc module: its three calls through dlsym, its event as bytes (12, packed, on
// x86_64; 16 on arm64): the events mask, then the data word.
typealias EpollCreate = @convention(c) (Int32) -> Int32
typealias EpollControl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer, Int32, Int32) -> Int32
let epollCreate = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "epoll_create1")!, to: EpollCreate.self)
let epollControl = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "epoll_ctl")!, to: EpollControl.self)
let epollWait = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "epoll_wait")!, to: EpollWait.self)
#if arch(x86_64)
let epollEventSize = 12
let epollDataOffset = 4
#else
let epollEventSize = 16
let epollDataOffset = 8
#endif
let epollAdd: Int32 = 1
let epollDelete: Int32 = 2
let epollIn: UInt32 = 1

/// A semaphore nothing posts: the threads below wait on it (or in `epoll_wait`) until exit.
nonisolated(unsafe) var never = sem_t()

@inline(never)
func startThread(_ body: @escaping @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?, _ argument: Int32) {
    var thread = pthread_t()
    pthread_create(&thread, nil, body, UnsafeMutableRawPointer(bitPattern: Int(argument) + 1))
}

nonisolated(unsafe) var ready = sem_t()

/// An event loop: waits for events on the epoll descriptor and would release each connection it is told
/// about (it never is: nothing happens on the pipes registered).
let eventLoop: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
    let epoll = Int32(Int(bitPattern: argument) - 1)
    let events = UnsafeMutableRawPointer.allocate(byteCount: 8 * epollEventSize, alignment: 8)
    sem_post(&ready)
    while true {
        let count = epollWait(epoll, events, 8, -1)
        for index in 0 ..< max(0, Int(count)) {
            let data = events.loadUnaligned(fromByteOffset: index * epollEventSize + epollDataOffset, as: UInt.self)
            if let pointer = UnsafeMutableRawPointer(bitPattern: data) {
                Unmanaged<Connection>.fromOpaque(pointer).release()
            }
        }
    }
}

/// A worker that would read retained pointers from a descriptor, once told to start (never).
let reader: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
    let descriptor = Int32(Int(bitPattern: argument) - 1)
    sem_post(&ready)
    sem_wait(&never)
    var pointer: UnsafeMutableRawPointer?
    _ = read(descriptor, &pointer, 8)
    if let pointer { Unmanaged<Connection>.fromOpaque(pointer).release() }
    return nil
}

/// Registers a new connection with `epoll`, watching `descriptor` for input.
@inline(never)
func register(_ epoll: Int32, _ descriptor: Int32, id: Int) {
    var event = [UInt8](repeating: 0, count: epollEventSize)
    event.withUnsafeMutableBytes { raw in
        raw.storeBytes(of: epollIn, toByteOffset: 0, as: UInt32.self)
        raw.storeBytes(of: UInt(bitPattern: retainedConnection(id)), toByteOffset: epollDataOffset, as: UInt.self)
        _ = epollControl(epoll, epollAdd, descriptor, raw.baseAddress)
        raw.storeBytes(of: 0, toByteOffset: epollDataOffset, as: UInt.self)
    }
}

/// Writes a new connection's retained address to `descriptor` after `header` bytes.
@inline(never)
func send(_ descriptor: Int32, id: Int, header: Int = 0) {
    var bytes = [UInt8](repeating: 0x2A, count: header + 8)
    var pointer = retainedConnection(id)
    withUnsafeBytes(of: &pointer) { raw in
        for index in 0 ..< 8 { bytes[header + index] = raw[index] }
    }
    _ = write(descriptor, bytes, bytes.count)
    bytes = []
}

@inline(never)
func epollMode(leaking: Bool) {
    let epoll = epollCreate(0)
    var descriptors: [Int32] = [0, 0]
    for id in 0 ..< 3 {
        pipe(&descriptors)
        register(epoll, descriptors[0], id: id)
        if leaking {
            _ = epollControl(epoll, epollDelete, descriptors[0], nil)  // dropped without the release
            break
        }
    }
    startThread(eventLoop, epoll)
    sem_wait(&ready)
}

@inline(never)
func pipeMode(leaking: Bool) {
    var descriptors: [Int32] = [0, 0]
    pipe(&descriptors)
    send(descriptors[1], id: 10)
    if leaking {
        var dropped = [UInt8](repeating: 0, count: 8)
        _ = read(descriptors[0], &dropped, 8)  // read, and the release forgotten
        dropped = [UInt8](repeating: 0, count: 8)
        return
    }
    send(descriptors[1], id: 11, header: 3)
    startThread(reader, descriptors[0])
    sem_wait(&ready)
}

@inline(never)
func socketMode() {
    var stream: [Int32] = [0, 0]
    socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &stream)
    send(stream[0], id: 20, header: 5)
    var datagrams: [Int32] = [0, 0]
    socketpair(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0, &datagrams)
    var first: UInt64 = 7
    _ = write(datagrams[0], &first, 8)
    send(datagrams[0], id: 21)
    // TCP over loopback: the pointer waits in the accepted socket's receive queue.
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            _ = bind(listener, pointer, length)
            _ = listen(listener, 1)
            _ = getsockname(listener, pointer, &length)
        }
    }
    let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = connect(client, $0, length) }
    }
    let accepted = accept(listener, nil, nil)
    send(client, id: 22, header: 1)
    // Wait until the bytes have arrived.
    var queued: Int32 = 0
    while queued < 9 {
        _ = ioctl(accepted, UInt(FIONREAD), &queued)
        usleep(1000)
    }
    startThread(reader, stream[1])
    sem_wait(&ready)
}

@inline(never)
func udpMode() {
    let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            _ = bind(receiver, pointer, length)
            _ = getsockname(receiver, pointer, &length)
        }
    }
    let sender = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = connect(sender, $0, length) }
    }
    send(sender, id: 40)
    var queued: Int32 = 0
    while queued < 8 {
        _ = ioctl(receiver, UInt(FIONREAD), &queued)
        usleep(1000)
    }
}

@inline(never)
func timerMode(leaking: Bool) {
    signal(SIGUSR1, SIG_IGN)
    var event = sigevent()
    event.sigev_notify = Int32(SIGEV_SIGNAL)
    event.sigev_signo = SIGUSR1
    event.sigev_value.sival_ptr = retainedConnection(30)
    var timer: timer_t?
    timer_create(CLOCK_MONOTONIC, &event, &timer)
    var hour = itimerspec(it_interval: timespec(), it_value: timespec(tv_sec: 3600, tv_nsec: 0))
    timer_settime(timer, 0, &hour, nil)
    if leaking { timer_delete(timer) }
}

@inline(never)
func scrubStack() {
    // Overwrites the dead frames below main with zeros, so no stale copy of a pointer handed to the
    // kernel is left where the exit-time check's frames do not reach.
    var scratch = [UInt64](repeating: 0, count: 1)
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8192) { buffer in
        buffer.initialize(repeating: 0)
        scratch[0] = buffer[8191]
    }
    _ = scratch
}

sem_init(&never, 0, 0)
sem_init(&ready, 0, 0)
switch mode {
case .leak:
    epollMode(leaking: true)
    pipeMode(leaking: true)
    timerMode(leaking: true)
case .epoll: epollMode(leaking: false)
case .pipe: pipeMode(leaking: false)
case .socket: socketMode()
case .timer: timerMode(leaking: false)
case .udp: udpMode()
}
scrubStack()
finish(expectingAlive: [.leak: 3, .epoll: 3, .pipe: 2, .socket: 3, .timer: 1, .udp: 1][mode]!)
