// Issue 21, the shapes of an RxSwift-style library, written small: a generic
// `Observable<Element>` whose `subscribe<Observer: ObserverType>` is itself generic (its closures have
// parameters at two depths and an associated-type requirement, `Observer.Element == Element`); a
// `PublishSubject<Element>` keeping its observers' `on` functions in a `Bag`; `AnyObserver<Element>`, a
// struct whose one field is a closure; `subscribe(onNext:onError:onCompleted:)` capturing optional handlers
// (`Optional<(Element) -> ()>`); operators (`map`, `filter`, `combineLatest` with three generic parameters)
// making new generic closures; a `DisposeBag`. And, without generics, `do(onSuccess:onError:)` on a
// request, which keeps its handlers as a tuple of optional throwing closures. Every generic function is
// kept generic in -O builds (`@_semantics`), as a library's code is to its clients.
//
// leak:     a `SearchViewModel` subscribes to its own subject through `map` and `filter`, capturing itself
//           in `onNext`, and keeps the subscription in its bag; a `Dashboard` subscribes to
//           `combineLatest` of its two subjects the same way; a `Loader` keeps the request its
//           `do(onSuccess:onError:)` handlers capture it from. Three root cycles.
// disposed: the same, and each bag is emptied (its subscriptions disposed) and the request dropped before
//           the function returns: nothing leaks.
// weak:     the same closures capture their owner `[weak self]`: nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, disposed, weak }

let mode = parseMode(Mode.self)

enum Event<Element> {
    case next(Element)
    case error(any Error)
    case completed
}

protocol ObserverType {
    associatedtype Element
    func on(_ event: Event<Element>)
}

struct AnyObserver<Element>: ObserverType {
    let observer: (Event<Element>) -> Void
    init(_ observer: @escaping (Event<Element>) -> Void) { self.observer = observer }
    func on(_ event: Event<Element>) { observer(event) }
}

protocol Disposable {
    func dispose()
}

final class AnonymousDisposable: Disposable {
    private var disposeAction: (() -> Void)?
    init(_ disposeAction: @escaping () -> Void) { self.disposeAction = disposeAction }

    func dispose() {
        let action = disposeAction
        disposeAction = nil
        action?()
    }
}

final class DisposeBag {
    private var disposables: [any Disposable] = []
    func insert(_ disposable: any Disposable) { disposables.append(disposable) }

    func dispose() {
        let all = disposables
        disposables = []
        for disposable in all { disposable.dispose() }
    }
}

extension Disposable {
    func disposed(by bag: DisposeBag) { bag.insert(self) }
}

struct Bag<T> {
    private(set) var entries: [Int: T] = [:]
    private var nextKey = 0

    mutating func insert(_ element: T) -> Int {
        let key = nextKey
        nextKey += 1
        entries[key] = element
        return key
    }

    mutating func removeKey(_ key: Int) { entries[key] = nil }
}

class Observable<Element> {
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable where Observer.Element == Element {
        fatalError("abstract")
    }
}

final class AnonymousObservable<Element>: Observable<Element> {
    let subscribeHandler: (AnyObserver<Element>) -> any Disposable

    init(_ subscribeHandler: @escaping (AnyObserver<Element>) -> any Disposable) { self.subscribeHandler = subscribeHandler }

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable where Observer.Element == Element {
        subscribeHandler(AnyObserver { observer.on($0) })
    }
}

final class PublishSubject<Element>: Observable<Element>, ObserverType {
    private var observers = Bag<(Event<Element>) -> Void>()

    func on(_ event: Event<Element>) {
        for observer in observers.entries.values { observer(event) }
    }

    /// The subscription's disposable removes the observer: its closure captures the subject.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable where Observer.Element == Element {
        let key = observers.insert(observer.on)
        return AnonymousDisposable { self.observers.removeKey(key) }
    }
}

extension Observable {
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    func subscribe(
        onNext: ((Element) -> Void)? = nil, onError: ((any Error) -> Void)? = nil, onCompleted: (() -> Void)? = nil
    ) -> any Disposable {
        subscribe(
            AnyObserver { event in
                switch event {
                case .next(let element): onNext?(element)
                case .error(let error): onError?(error)
                case .completed: onCompleted?()
                }
            })
    }

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Observable<Result> {
        AnonymousObservable<Result> { observer in
            self.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        do { observer.on(.next(try transform(element))) } catch { observer.on(.error(error)) }
                    case .error(let error): observer.on(.error(error))
                    case .completed: observer.on(.completed)
                    }
                })
        }
    }

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    func filter(_ predicate: @escaping (Element) -> Bool) -> Observable<Element> {
        AnonymousObservable { observer in
            self.subscribe(
                AnyObserver { event in
                    if case .next(let element) = event, !predicate(element) { return }
                    observer.on(event)
                })
        }
    }

    /// Three generic parameters: the two sources' elements and the result's.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func combineLatest<A, B>(_ a: Observable<A>, _ b: Observable<B>, _ selector: @escaping (A, B) -> Element)
        -> Observable<Element>
    {
        AnonymousObservable { observer in
            var latestA: A?
            var latestB: B?
            let first = a.subscribe(onNext: { value in
                latestA = value
                if let latestB { observer.on(.next(selector(value, latestB))) }
            })
            let second = b.subscribe(onNext: { value in
                latestB = value
                if let latestA { observer.on(.next(selector(latestA, value))) }
            })
            return AnonymousDisposable {
                first.dispose()
                second.dispose()
            }
        }
    }
}

/// A request (no generics): `do(onSuccess:onError:)` keeps its handlers as a tuple of optional throwing
/// closures, captured by the request it returns.
final class Request {
    let run: (Int) -> Void

    init(_ run: @escaping (Int) -> Void) { self.run = run }

    @inline(never)
    func `do`(onSuccess: ((Int) throws -> Void)? = nil, onError: ((any Error) throws -> Void)? = nil) -> Request {
        let handlers = (onSuccess: onSuccess, onError: onError)
        return Request { value in
            self.run(value)
            do { try handlers.onSuccess?(value) } catch { try? handlers.onError?(error) }
        }
    }
}

// MARK: - The owners

final class SearchViewModel {
    let query = PublishSubject<String>()
    let bag = DisposeBag()
    var count = 0

    @inline(never)
    func bind() {
        let counts = query.map { $0.count }.filter { $0 > 0 }
        if mode == .weak {
            counts.subscribe(onNext: { [weak self] in self?.count = $0 }).disposed(by: bag)
        } else {
            counts.subscribe(onNext: { self.count = $0 }).disposed(by: bag)
        }
    }
}

final class Dashboard {
    let width = PublishSubject<Int>()
    let title = PublishSubject<String>()
    let bag = DisposeBag()
    var shown = ""

    @inline(never)
    func bind() {
        let both = Observable<String>.combineLatest(width, title) { "\($1) (\($0))" }
        if mode == .weak {
            both.subscribe(onNext: { [weak self] in self?.shown = $0 }).disposed(by: bag)
        } else {
            both.subscribe(onNext: { self.shown = $0 }).disposed(by: bag)
        }
    }
}

final class Loader {
    var request: Request?
    var loaded = 0
    var failures = 0

    @inline(never)
    func load() {
        let base = Request { _ in }
        if mode == .weak {
            request = base.do(onSuccess: { [weak self] in self?.loaded = $0 }, onError: { [weak self] _ in self?.failures += 1 })
        } else {
            request = base.do(onSuccess: { self.loaded = $0 }, onError: { _ in self.failures += 1 })
        }
    }
}

@inline(never)
func bindAll() {
    let search = SearchViewModel()
    let dashboard = Dashboard()
    let loader = Loader()
    for owner in [search, dashboard, loader] as [AnyObject] { watch(owner) }
    search.bind()
    dashboard.bind()
    loader.load()
    search.query.on(.next("swift"))
    dashboard.width.on(.next(80))
    dashboard.title.on(.next("Today"))
    loader.request?.run(3)
    if mode == .disposed {
        search.bag.dispose()
        dashboard.bag.dispose()
        loader.request = nil
    }
}

bindAll()
finish(expectingAlive: mode == .leak ? 3 : 0)
