// Issue 21, the shapes of a ReactiveSwift-style library, written small: a
// generic `Signal<Value, Error>` keeps `Observer<Value, Error>`s (a class whose one field is a closure of
// the event) in a bag until disposed; `SignalProducer<Value, Error>` is a struct whose one field is a class
// reference; operators (`map`, `filter`, `combineLatest`, `on(value:failed:)`) make new generic closures
// that capture the downstream observer, the transform, and optional handlers (`Optional<(Value) -> ()>`).
// Every generic function is kept generic in -O builds (`@_semantics`), as a library's code is to its
// clients: the contexts are generic closure contexts whose parameters come from bindings or from nowhere.
//
// leak:     four subscriptions kept by the object their closures capture —
//           1. `counter.property.producer.startWithValues { _ in counter.seen = counter.property.value }`
//              (a MutableProperty<Int> observed by a closure capturing its owner: the classic cycle);
//           2. `form.name.producer.map { $0.count }.filter { $0 > 0 }.startWithValues { form.count = $0 }`
//              (an operator chain: two generic parameters at each step, a closure made by each operator);
//           3. `pair.left.producer.combineLatest(with: pair.right.producer).startWithValues { pair.use($0) }`
//              (three generic parameters: Value, Error and the other producer's value);
//           4. `panel.title.producer.on(value: { _ in panel.touch() }).start()` (an optional function
//              capture, `Optional<(String) -> ()>`, beside a nil one).
//           Each owner keeps its subscription's disposable. Four root cycles.
// disposed: the same subscriptions, disposed before the function returns: nothing leaks.
// weak:     the same closures capture their owner `[weak …]`: nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, disposed, weak }

let mode = parseMode(Mode.self)

struct NoError: Error {}

enum Event<Value, Failure: Error> {
    case value(Value)
    case failed(Failure)
    case completed
}

final class Observer<Value, Failure: Error> {
    let action: (Event<Value, Failure>) -> Void

    init(_ action: @escaping (Event<Value, Failure>) -> Void) { self.action = action }

    /// An observer from optional handlers: its action captures `Optional<(Value) -> ()>` and
    /// `Optional<(Failure) -> ()>`.
    @_semantics("optimize.sil.specialize.generic.never")
    convenience init(value: ((Value) -> Void)? = nil, failed: ((Failure) -> Void)? = nil) {
        self.init { event in
            switch event {
            case .value(let content): value?(content)
            case .failed(let error): failed?(error)
            case .completed: break
            }
        }
    }

    func send(_ event: Event<Value, Failure>) { action(event) }
}

final class Disposable {
    private var action: (() -> Void)?
    init(_ action: @escaping () -> Void) { self.action = action }

    func dispose() {
        let action = self.action
        self.action = nil
        action?()
    }
}

final class Disposables {
    private var all: [Disposable] = []
    func add(_ disposable: Disposable) { all.append(disposable) }

    func dispose() {
        let all = self.all
        self.all = []
        for disposable in all { disposable.dispose() }
    }
}

final class Signal<Value, Failure: Error> {
    private var observers: [Int: Observer<Value, Failure>] = [:]
    private var nextToken = 0

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    func observe(_ observer: Observer<Value, Failure>) -> Disposable {
        let token = nextToken
        nextToken += 1
        observers[token] = observer
        return Disposable { [weak self] in self?.observers[token] = nil }
    }

    func send(_ event: Event<Value, Failure>) {
        for observer in observers.values { observer.send(event) }
    }
}

struct SignalProducer<Value, Failure: Error> {
    final class Core {
        let start: (Observer<Value, Failure>) -> Disposable
        init(_ start: @escaping (Observer<Value, Failure>) -> Disposable) { self.start = start }
    }

    let core: Core

    init(_ start: @escaping (Observer<Value, Failure>) -> Disposable) { core = Core(start) }

    func start(_ observer: Observer<Value, Failure> = Observer { _ in }) -> Disposable { core.start(observer) }

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    func startWithValues(_ action: @escaping (Value) -> Void) -> Disposable {
        start(Observer(value: action))
    }

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    func map<U>(_ transform: @escaping (Value) -> U) -> SignalProducer<U, Failure> {
        SignalProducer<U, Failure> { observer in
            self.start(
                Observer { event in
                    switch event {
                    case .value(let content): observer.send(.value(transform(content)))
                    case .failed(let error): observer.send(.failed(error))
                    case .completed: observer.send(.completed)
                    }
                })
        }
    }

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    func filter(_ isIncluded: @escaping (Value) -> Bool) -> SignalProducer<Value, Failure> {
        SignalProducer { observer in
            self.start(
                Observer { event in
                    if case .value(let content) = event, !isIncluded(content) { return }
                    observer.send(event)
                })
        }
    }

    /// The latest values of two producers: three generic parameters (`Value`, `Failure`, `Other`).
    final class Latest<Other> {
        var left: Value?
        var right: Other?
    }

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    func combineLatest<Other>(with other: SignalProducer<Other, Failure>) -> SignalProducer<(Value, Other), Failure> {
        SignalProducer<(Value, Other), Failure> { observer in
            let latest = Latest<Other>()
            let first = self.start(
                Observer(value: { value in
                    latest.left = value
                    if let right = latest.right { observer.send(.value((value, right))) }
                }))
            let second = other.start(
                Observer(value: { value in
                    latest.right = value
                    if let left = latest.left { observer.send(.value((left, value))) }
                }))
            return Disposable {
                first.dispose()
                second.dispose()
            }
        }
    }

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    func on(value: ((Value) -> Void)? = nil, failed: ((Failure) -> Void)? = nil) -> SignalProducer<Value, Failure> {
        SignalProducer { observer in
            self.start(
                Observer { event in
                    switch event {
                    case .value(let content): value?(content)
                    case .failed(let error): failed?(error)
                    case .completed: break
                    }
                    observer.send(event)
                })
        }
    }
}

final class MutableProperty<Value> {
    private(set) var value: Value
    let signal = Signal<Value, NoError>()

    init(_ value: Value) { self.value = value }

    func set(_ value: Value) {
        self.value = value
        signal.send(.value(value))
    }

    /// The current value, then every change.
    var producer: SignalProducer<Value, NoError> {
        SignalProducer { [signal, value] observer in
            observer.send(.value(value))
            return signal.observe(observer)
        }
    }
}

// MARK: - The owners

final class Counter {
    let property = MutableProperty(0)
    var seen = 0
    let disposables = Disposables()
}

final class Form {
    let name = MutableProperty("")
    var count = 0
    let disposables = Disposables()
}

final class Pair {
    let left = MutableProperty(1)
    let right = MutableProperty("one")
    var uses = 0
    let disposables = Disposables()
    func use(_ pair: (Int, String)) { uses += pair.0 }
}

final class Panel {
    let title = MutableProperty("title")
    var touches = 0
    let disposables = Disposables()
    func touch() { touches += 1 }
}

@inline(never)
func subscribe() {
    let counter = Counter()
    let form = Form()
    let pair = Pair()
    let panel = Panel()
    for owner in [counter, form, pair, panel] as [AnyObject] { watch(owner) }
    if mode == .weak {
        counter.disposables.add(counter.property.producer.startWithValues { [weak counter] _ in counter?.seen = counter?.property.value ?? 0 })
        form.disposables.add(form.name.producer.map { $0.count }.filter { $0 > 0 }.startWithValues { [weak form] in form?.count = $0 })
        pair.disposables.add(pair.left.producer.combineLatest(with: pair.right.producer).startWithValues { [weak pair] in pair?.use($0) })
        panel.disposables.add(panel.title.producer.on(value: { [weak panel] _ in panel?.touch() }).start())
    } else {
        counter.disposables.add(counter.property.producer.startWithValues { _ in counter.seen = counter.property.value })
        form.disposables.add(form.name.producer.map { $0.count }.filter { $0 > 0 }.startWithValues { form.count = $0 })
        pair.disposables.add(pair.left.producer.combineLatest(with: pair.right.producer).startWithValues { pair.use($0) })
        panel.disposables.add(panel.title.producer.on(value: { _ in panel.touch() }).start())
    }
    counter.property.set(1)
    form.name.set("name")
    pair.right.set("two")
    panel.title.set("new title")
    if mode == .disposed {
        for disposables in [counter.disposables, form.disposables, pair.disposables, panel.disposables] {
            disposables.dispose()
        }
    }
}

subscribe()
finish(expectingAlive: mode == .leak ? 4 : 0)
