import LeakGraphModel

/// The strong reference of a root cycle most likely to be the mistake, with why and what to change.
///
/// Every root cycle is kept alive by its internal strong references only, so turning any one of them
/// weak (or clearing it) frees the cycle and everything it holds. Which one the programmer got wrong is a
/// judgement; ``LeakAnalysis/suspectReferences(in:)`` makes it with the rules of ``Rule``, in the spirit of
/// LeakCanary's suspect references. A suspect is always a strong reference between two members of the
/// same cycle, never a weak, unowned or unmanaged one.
public struct SuspectReference: Sendable, Hashable {
    /// The id of the root cycle (``RootCycle/id``).
    public var cycle: Int
    /// The index of the reference in ``LeakGraphModel/ObjectGraph/references``.
    public var reference: Int
    /// The node index of the referencing object.
    public var from: Int
    /// The node index of the referenced object.
    public var to: Int
    /// Where the reference is stored in its source (``ReferencePath/text``: `delegate`, `handler (closure)`).
    public var path: ReferencePath
    /// The rule that chose it.
    public var rule: Rule

    /// The reference's label as people read it (``LeakGraphModel/ReferencePath/text``).
    public var label: String { path.text }
    /// Why this reference is the suspect: one sentence without a final period, naming no addresses.
    public var reason: String
    /// What to change: one sentence without a final period, e.g. "make it `weak var delegate`".
    public var hint: String

    /// Creates a suspect.
    public init(
        cycle: Int, reference: Int, from: Int, to: Int, path: ReferencePath, rule: Rule, reason: String, hint: String
    ) {
        self.cycle = cycle
        self.reference = reference
        self.from = from
        self.to = to
        self.path = path
        self.rule = rule
        self.reason = reason
        self.hint = hint
    }

    /// The rules that pick a suspect, tried in this order; the first that matches an internal strong
    /// reference of the cycle decides. New rules may be added.
    public enum Rule: String, Sendable, Hashable, CaseIterable {
        /// 1. A stored property named like a back-reference: its name, split into camelCase (or `_`)
        ///    words, ends with one of ``SuspectReference/backReferenceWords`` (`delegate`, `bikeChangedDelegate`,
        ///    `dataSource`, `weakOwner`) or starts with `parent`, `owner` or `delegate` (`parentNode`).
        ///    Earlier words in the list win, then a match at the end of the name, then the lowest source
        ///    node, then the first reference. Closure-valued properties are left to rule 2.
        ///    Hint: "make it `weak var delegate`" when that declaration holds the reference
        ///    (``LeakGraphModel/ReferencePath/weakCandidate``); otherwise advice that compiles (a collection's
        ///    elements, an enum payload or a tuple element cannot be declared weak).
        case backReferenceName
        /// 2. A closure stored in an object that leads back to that object: the path ends in a closure
        ///    context (``LeakGraphModel/ReferencePath/isClosure``, written `(closure)`). A self-reference (`handler (closure)` from an object to itself: a closure whose
        ///    only capture is the object, so its context *is* the object) wins, then a closure context
        ///    that captures the holder directly, then any other closure in the cycle (inside a strongly
        ///    connected cycle every closure context leads back to its holder, perhaps through a box or
        ///    another object). Hint: "capture self weakly: `{ [weak self] in … }`".
        case closureCapturingHolder
        /// After rule 2: a waiting task's own retain held inside the cycle by the one holder of the stream
        ///    it waits on (``LeakGraphModel/ReferencePath/isTaskResumption``, `continuation (resumes
        ///    Task)`), e.g. a task whose own closure keeps its stream's only Continuation. Hint: "finish
        ///    the stream (`continuation.finish()`) when you are done with it, or cancel the task".
        case streamKeptForTask
        /// 3. A reference back to the object that keeps the source in a collection: `X → P` where `P`
        ///    references an array, dictionary or set storage that references `X` (`child.parent` while
        ///    `parent.children` holds the child). Lowest source node, then first reference, wins.
        ///    Hint: "make it `weak var folder`".
        case referenceToContainer
        /// 4. An object referencing itself through a stored property (`a.me = a`).
        ///    Hint: clear the property or make it weak.
        case selfReference
        /// 5. None of the above: the reference that closes the ring. Its target is the member created
        ///    first as far as the graph tells — the lowest creation stack id (the recorder numbers stacks
        ///    in the order it first sees them, so a lower id is a creation site that ran earlier; no stack
        ///    counts as latest), then the lowest node index (the heap walk numbers nodes by address). Its
        ///    source is the member referencing that target with the highest stack id, then the highest
        ///    node index. In a ring built as `first = Node(); … last.next = first` this is the closing
        ///    link `last.next`; in a ring whose objects share one creation site it is the reference into the
        ///    lowest address. A deterministic choice, not a judgement; the hint is generic.
        case closingReference
    }

    /// The words that mark a property as a back-reference (rule 1), most telling first. Compared without
    /// regard to case; `dataSource` is the two words `data`, `source`.
    public static let backReferenceWords = [
        "delegate", "dataSource", "parent", "owner", "observer", "listener", "target", "container", "manager",
        "controller",
    ]
}
