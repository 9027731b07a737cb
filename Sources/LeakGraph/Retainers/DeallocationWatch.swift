import FoundationEssentials
import LeakGraphRender
import LeakGraphReport
import LeakGraphRecording
import Synchronization

/// A watch on one object that should be deallocated soon — a view controller after it is dismissed, a
/// session after logout (LeakCanary's retained-object watch). Made by
/// ``LeakChecker/expectDeallocation(of:within:scanForHolder:onAlive:)``.
///
/// The watch holds the object weakly. When the object is still alive at the deadline, ``wait()`` says
/// why: the shortest chain of strong references from a root (a global by name, a thread's stack) to
/// it (`RetainerChain`), or that it is leaked (in a cycle nothing reaches).
public final class DeallocationWatch: Sendable {
    /// The watched object's type, fully qualified.
    public let typeName: String
    /// How long the object was given.
    public let timeLimit: Duration
    private let object: WeakBox
    /// The object's address, stored inverted: the watch is itself a tracked object, and a plain copy
    /// would look like a reference to the scan that names what holds a root.
    private let invertedAddress: UInt
    /// The object's type metadata (its first word): with the address, its identity.
    private let metadata: UInt
    private let deadline: ContinuousClock.Instant
    /// Whether a failure names what holds the chain's root (the holder scan, which stops other threads).
    private let scanForHolder: Bool

    /// Watches `object` for `timeLimit` from now.
    init(_ object: AnyObject, within timeLimit: Duration, scanForHolder: Bool = true) {
        self.scanForHolder = scanForHolder
        self.typeName = _typeName(type(of: object), qualified: true)
        self.timeLimit = timeLimit
        self.object = WeakBox(object)
        self.invertedAddress = ~UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        self.metadata = Unmanaged.passUnretained(object).toOpaque().load(as: UInt.self)
        self.deadline = ContinuousClock.now + timeLimit
    }

    /// Whether the object has been deallocated.
    public var isDeallocated: Bool { object.isEmpty }

    /// Waits until the object is deallocated (returns `nil`) or the deadline passes with it alive
    /// (returns why it is alive). Polls every 10 ms.
    public func wait() async -> DeallocationFailure? {
        while !isDeallocated, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return failureIfAlive()
    }

    /// ``wait()`` for code that cannot `await`: blocks the calling thread.
    public func waitBlocking() -> DeallocationFailure? {
        while !isDeallocated, ContinuousClock.now < deadline {
            PlainThreads.sleep(for: .milliseconds(10))
        }
        return failureIfAlive()
    }

    /// Why the object is alive now, or `nil` when it is gone.
    ///
    /// The object is found by identity, never by its type's name (a `private`, `fileprivate`, generic or
    /// nested class has a runtime name that the walk's cleaned-up name need not equal): the object at
    /// the watched address whose metadata is the watched object's, while the watch's weak reference
    /// still holds it. The heap is frozen for the search, so the object cannot be freed meanwhile; once
    /// the weak reference is empty the object is gone, whatever now lives at its address.
    public func failureIfAlive() -> DeallocationFailure? {
        guard !isDeallocated else { return nil }
        let address = ~invertedAddress
        let metadata = self.metadata
        var matched = false
        var shownType = typeName
        let found = RetainerSearch.find(limit: 1, scanForHolders: scanForHolder) { scan, objects in
            guard let node = scan.node(at: address, address: { objects[$0] }),
                Recorder.frozenRecord(at: address).map({ UInt($0.metadata) }) == metadata
            else { return [] }
            matched = true
            shownType = scan.typeName(ofNode: node)
            return [node]
        }
        guard matched, !isDeallocated else { return nil }
        return DeallocationFailure(
            type: shownType, address: "0x" + String(address, radix: 16), timeLimit: timeLimit,
            retainers: found.chains.first, isLeaked: found.leaked > 0)
    }
}

/// A weak reference behind a lock, so the watch can be `Sendable`.
private final class WeakBox: Sendable {
    private let storage: Mutex<Weak>

    private struct Weak: @unchecked Sendable {
        weak var object: AnyObject?
    }

    init(_ object: AnyObject) {
        storage = Mutex(Weak(object: object))
    }

    var isEmpty: Bool { storage.withLock { $0.object == nil } }
}

/// An object still alive after the time it was given (``DeallocationWatch``): its type and address, and
/// why it is alive.
public struct DeallocationFailure: Error, Sendable, CustomStringConvertible {
    /// The object's type, fully qualified.
    public var type: String
    /// Its address, `0x…`.
    public var address: String
    /// The time it was given.
    public var timeLimit: Duration
    /// The shortest chain of strong references from a root to it; `nil` when it is leaked or was
    /// allocated before recording started.
    public var retainers: RetainerChain?
    /// Whether no root reaches it: it is in (or held by) a cycle nothing can reach — a leak.
    public var isLeaked: Bool

    /// Creates a failure.
    public init(type: String, address: String, timeLimit: Duration, retainers: RetainerChain?, isLeaked: Bool) {
        self.type = type
        self.address = address
        self.timeLimit = timeLimit
        self.retainers = retainers
        self.isLeaked = isLeaked
    }

    /// The failure as text: a first line naming the object and the time limit, then the chain.
    public var description: String {
        let name = ReportNaming.shortName(type)
        var lines = ["\(name) (\(address)) was not deallocated within \(timeLimit.secondsAndMilliseconds)."]
        if let retainers {
            lines.append("   " + retainers.summaryLine)
            lines.append(contentsOf: retainers.textLines(indent: 3))
        } else if isLeaked {
            lines.append(
                "   It is leaked: in, or held by, a reference cycle nothing can reach (a leak check reports the cycle)."
            )
        } else {
            lines.append(
                "   Nothing explains it: it was allocated before recording started, or is held only from outside the heap."
            )
        }
        return lines.joined(separator: "\n")
    }
}
