import Foundation

/// Types only these tests allocate. Each leak is made in an `@inline(never)` function whose objects
/// escape only into the cycle, so the optimizer keeps it in release builds.
final class ScopedParent {
    var child: ScopedChild?
}

final class ScopedChild {
    var parent: ScopedParent?
    weak var weakParent: ScopedParent?
}

/// A parent ⇄ child pair; with `leak` the child holds its parent strongly.
@inline(never)
func makeFamily(leak: Bool) {
    let parent = ScopedParent()
    let child = ScopedChild()
    parent.child = child
    if leak {
        child.parent = parent
    } else {
        child.weakParent = parent
    }
}

/// A node that holds itself through a closure, named by a type parameter so that each parallel
/// test leaks its own type.
final class Looper<Tag> {
    var onTick: (() -> Void)?
}

/// Makes a `Looper<Tag>` whose closure captures it strongly.
@inline(never)
func makeLooper<Tag>(_: Tag.Type) {
    let looper = Looper<Tag>()
    looper.onTick = { _ = looper }
}

/// Tags for the parallel tests.
enum TagA {}
enum TagB {}
enum TagC {}
enum TagD {}

/// A pair whose cycle another thread breaks shortly after: `owner ⇄ worker`, and a block on a
/// global queue, holding the owner weakly, that clears `worker.owner` after `delay`.
final class SlowOwner {
    var worker: SlowWorker?
}

final class SlowWorker: @unchecked Sendable {
    var owner: SlowOwner?
}

@inline(never)
func makeSlowlyReleasedPair(delay: DispatchTimeInterval, after gate: DispatchSemaphore? = nil) {
    let owner = SlowOwner()
    let worker = SlowWorker()
    owner.worker = worker
    worker.owner = owner
    DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak worker] in
        gate?.wait()
        worker?.owner = nil
    }
}

/// Objects leaked before any check of these tests, kept to prove they are never reported.
final class EarlyLeak {
    var me: EarlyLeak?
}

@inline(never)
func makeEarlyLeak() {
    let early = EarlyLeak()
    early.me = early
}

/// An object retained once more through `Unmanaged` whose pointer is then dropped: an orphan.
final class OrphanedToken {
    var payload = [1, 2, 3]
}

@inline(never)
func makeOrphanedToken(balanced: Bool) {
    let retained = Unmanaged.passRetained(OrphanedToken())
    if balanced {
        retained.release()
    }
}
